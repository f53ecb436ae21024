package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** Every named type and every field carries a doc (units live there). */
class SchemaDocsTest {
  @Test
  void everyFieldAndTypeIsDocumented() {
    List<String> missing = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (Class<? extends SpecificRecord> type : ReleasedSchemas.RELEASED_TYPES) {
      walk(ReleasedSchemas.currentSchema(type), seen, missing);
    }
    assertThat(missing).isEmpty();
    assertThat(seen).contains("io.tierroute.schemas.avro.FittedValue", "io.tierroute.schemas.avro.QuantileForestModel",
        "io.tierroute.schemas.avro.Tier", "io.tierroute.schemas.avro.AllCleared");
  }

  private static void walk(Schema s, Set<String> seen, List<String> missing) {
    switch (s.getType()) {
      case RECORD -> {
        if (!seen.add(s.getFullName())) {
          return;
        }
        if (blank(s.getDoc())) {
          missing.add(s.getFullName());
        }
        for (Schema.Field f : s.getFields()) {
          if (blank(f.doc())) {
            missing.add(s.getName() + "." + f.name());
          }
          walk(f.schema(), seen, missing);
        }
      }
      case ENUM -> {
        if (seen.add(s.getFullName()) && blank(s.getDoc())) {
          missing.add(s.getFullName());
        }
      }
      case ARRAY -> walk(s.getElementType(), seen, missing);
      case MAP -> walk(s.getValueType(), seen, missing);
      case UNION -> s.getTypes().forEach(t -> walk(t, seen, missing));
      default -> { }
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
