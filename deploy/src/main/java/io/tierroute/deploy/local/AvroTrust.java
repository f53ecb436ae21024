package io.tierroute.deploy.local;

/**
 * Avro 1.12.2 refuses to decode classes outside its trusted packages (STACK.md); every JVM of the local
 * cluster trusts the project's generated classes with this flag, TaskManagers included.
 */
final class AvroTrust {
    static final String FLAG = "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.tierroute";

    private AvroTrust() {}
}
