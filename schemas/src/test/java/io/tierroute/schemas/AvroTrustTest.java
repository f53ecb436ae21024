package io.tierroute.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tierroute.schemas.avro.SnapshotControl;
import io.tierroute.schemas.avro.Tier;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.util.ClassSecurityValidator;
import org.apache.avro.util.ClassSecurityValidator.ClassSecurityPredicate;
import org.junit.jupiter.api.Test;

class AvroTrustTest {

  @Test
  void decodingWorksWithoutTheSystemProperty() {
    assertThat(System.getProperty("org.apache.avro.SERIALIZABLE_PACKAGES")).isNull();
    assertThat(System.getProperty("org.apache.avro.SERIALIZABLE_CLASSES")).isNull();
    SnapshotControl c = Samples.snapshotControl();
    assertThat(Codecs.SNAPSHOT_CONTROL.decode(Codecs.SNAPSHOT_CONTROL.encode(c))).isEqualTo(c);
    assertThat(AvroTrust.isTrusted(SnapshotControl.class)).isTrue();
    assertThat(AvroTrust.isTrusted(Tier.class)).isTrue();
    assertThat(AvroTrust.isTrusted(java.net.URL.class)).isFalse();
  }

  /** The trap is real: with Avro's default predicate the same decode is refused. */
  @Test
  void withoutTheRegistrationAvroRefusesTheGeneratedClasses() {
    byte[] bytes = Codecs.SNAPSHOT_CONTROL.encode(Samples.snapshotControl());
    ClassSecurityPredicate installed = ClassSecurityValidator.getGlobal();
    ClassSecurityValidator.setGlobal(ClassSecurityValidator.DEFAULT);
    try {
      // A fresh SpecificData has an empty class cache, so it must load (and validate) the class.
      SpecificDatumReader<SnapshotControl> reader = new SpecificDatumReader<>(
          SnapshotControl.getClassSchema(), SnapshotControl.getClassSchema(), new SpecificData());
      assertThatThrownBy(() -> reader.read(null,
          DecoderFactory.get().binaryDecoder(bytes, 10, bytes.length - 10, null)))
          .isInstanceOf(SecurityException.class)
          .hasMessageContaining("not trusted");
    } finally {
      ClassSecurityValidator.setGlobal(installed);
    }
  }
}
