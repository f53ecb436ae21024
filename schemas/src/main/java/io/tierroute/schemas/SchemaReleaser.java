package io.tierroute.schemas;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaFormatter;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.specific.SpecificRecord;

/**
 * Writes the released copy of every record type whose current schema is not released yet:
 * {@code <releasedDir>/<RecordName>/v<N+1>.avsc}, the fully inlined JSON ({@code SchemaFormatter "json/pretty"}, i.e. {@code Schema.toString(true)})
 * of the generated class. Refuses (and writes nothing) if a current schema cannot read one of its
 * released versions. A change that only touches {@code doc} keeps the fingerprint and is not a
 * new version.
 *
 * <p>Run from the repository root after changing a schema and compiling:
 * {@code mvn -B -q -pl schemas clean compile exec:java -Dexec.mainClass=io.tierroute.schemas.SchemaReleaser -Dexec.args=schemas/src/main/resources/released},
 * or {@code java -cp <schemas classes + avro> io.tierroute.schemas.SchemaReleaser schemas/src/main/resources/released}.
 * Then commit the new files.
 */
public final class SchemaReleaser {
  private SchemaReleaser() {}

  public static void main(String[] args) throws IOException {
    Path dir = Paths.get(args.length > 0 ? args[0] : "schemas/src/main/resources/" + ReleasedSchemas.RESOURCE_ROOT);
    List<Path> written = release(dir);
    if (written.isEmpty()) {
      System.out.println("All record types are released already (" + dir.toAbsolutePath() + ")");
    }
    for (Path p : written) {
      System.out.println("released " + p);
    }
  }

  /** Releases every unreleased current schema into {@code releasedDir}; returns the files written. */
  public static List<Path> release(Path releasedDir) throws IOException {
    List<Path> toWrite = new ArrayList<>();
    List<String> contents = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (Class<? extends SpecificRecord> type : ReleasedSchemas.RELEASED_TYPES) {
      String name = type.getSimpleName();
      Schema current = ReleasedSchemas.currentSchema(type);
      List<Schema> released = readReleased(releasedDir, name);
      if (!released.isEmpty()
          && SchemaNormalization.parsingFingerprint64(released.get(released.size() - 1))
              == SchemaNormalization.parsingFingerprint64(current)) {
        continue;
      }
      for (int i = 0; i < released.size(); i++) {
        SchemaCompatibility.SchemaPairCompatibility c =
            SchemaCompatibility.checkReaderWriterCompatibility(current, released.get(i));
        if (c.getType() != SchemaCompatibilityType.COMPATIBLE) {
          problems.add(name + ": the current schema cannot read released v" + (i + 1) + ": " + c.getDescription());
        }
      }
      toWrite.add(releasedDir.resolve(name).resolve("v" + (released.size() + 1) + ".avsc"));
      contents.add(SchemaFormatter.format("json/pretty", current) + "\n");
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException("Not releasing incompatible schemas:\n  " + String.join("\n  ", problems));
    }
    for (int i = 0; i < toWrite.size(); i++) {
      Files.createDirectories(toWrite.get(i).getParent());
      Files.writeString(toWrite.get(i), contents.get(i), StandardCharsets.UTF_8);
    }
    return toWrite;
  }

  /** Released versions of {@code recordName} in {@code releasedDir}, v1 first. */
  static List<Schema> readReleased(Path releasedDir, String recordName) throws IOException {
    List<Schema> out = new ArrayList<>();
    for (int v = 1; ; v++) {
      Path p = releasedDir.resolve(recordName).resolve("v" + v + ".avsc");
      if (!Files.exists(p)) {
        return out;
      }
      out.add(ReleasedSchemas.parse(Files.readString(p, StandardCharsets.UTF_8), p.toString()));
    }
  }
}
