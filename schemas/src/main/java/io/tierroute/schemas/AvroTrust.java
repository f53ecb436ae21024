package io.tierroute.schemas;

import org.apache.avro.util.ClassSecurityValidator;
import org.apache.avro.util.ClassSecurityValidator.ClassSecurityPredicate;

/**
 * Works around the Avro 1.12.2 class-trust check (apache/avro PR #3693): without it, decoding a
 * generated class throws {@code SecurityException: Forbidden ... This class is not trusted} unless
 * every JVM runs with {@code -Dorg.apache.avro.SERIALIZABLE_PACKAGES=...}.
 *
 * <p>The static initializer adds, once per class loader, a predicate that trusts the generated
 * package {@value #GENERATED_PACKAGE} on top of whatever predicate is installed already (so the
 * system properties and other libraries' registrations keep working). {@link RecordCodec} runs it
 * before its first decode. Code that decodes the generated classes without a {@link RecordCodec}
 * (e.g. Flink's {@code AvroSerializer} on a TaskManager) calls {@link #install()} first, e.g. in
 * {@code open()}.
 */
public final class AvroTrust {
  /** Package of the classes generated from {@code src/main/avro}. */
  public static final String GENERATED_PACKAGE = "io.tierroute.schemas.avro";

  private static final ClassSecurityPredicate GENERATED =
      c -> c.getName().startsWith(GENERATED_PACKAGE + ".");

  static {
    ClassSecurityPredicate previous = ClassSecurityValidator.getGlobal();
    ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(previous, GENERATED));
  }

  private AvroTrust() {}

  /** Ensures the generated package is trusted; idempotent and cheap after the first call. */
  public static void install() {
    // The work is done by the static initializer, which the JVM runs exactly once.
  }

  /** Whether Avro's current global predicate trusts {@code type}. */
  public static boolean isTrusted(Class<?> type) {
    return ClassSecurityValidator.getGlobal().isTrusted(type);
  }
}
