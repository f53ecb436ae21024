package io.tierroute.schemas;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/** Random data for any schema, as generic data (for writer schemas with no generated class). */
final class RandomGeneric {
  private RandomGeneric() {}

  static GenericRecord record(Schema schema, Random rnd) {
    return (GenericRecord) value(schema, rnd, 0);
  }

  static Object value(Schema s, Random rnd, int depth) {
    switch (s.getType()) {
      case RECORD: {
        GenericData.Record r = new GenericData.Record(s);
        for (Schema.Field f : s.getFields()) {
          r.put(f.pos(), value(f.schema(), rnd, depth + 1));
        }
        return r;
      }
      case ENUM:
        return new GenericData.EnumSymbol(s, s.getEnumSymbols().get(rnd.nextInt(s.getEnumSymbols().size())));
      case ARRAY: {
        int n = depth > 4 ? 0 : rnd.nextInt(4);
        List<Object> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          items.add(value(s.getElementType(), rnd, depth + 1));
        }
        return new GenericData.Array<>(s, items);
      }
      case MAP: {
        int n = depth > 4 ? 0 : rnd.nextInt(3);
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < n; i++) {
          m.put("k" + rnd.nextInt(1000), value(s.getValueType(), rnd, depth + 1));
        }
        return m;
      }
      case UNION:
        return value(s.getTypes().get(rnd.nextInt(s.getTypes().size())), rnd, depth);
      case FIXED: {
        byte[] b = new byte[s.getFixedSize()];
        rnd.nextBytes(b);
        return new GenericData.Fixed(s, b);
      }
      case STRING:
        return "s" + Long.toString(rnd.nextLong(), 36);
      case BYTES: {
        byte[] b = new byte[rnd.nextInt(8)];
        rnd.nextBytes(b);
        return ByteBuffer.wrap(b);
      }
      case INT:
        return rnd.nextInt();
      case LONG:
        return rnd.nextLong();
      case FLOAT:
        return rnd.nextFloat() * 1000;
      case DOUBLE:
        return rnd.nextDouble() * 1e6;
      case BOOLEAN:
        return rnd.nextBoolean();
      case NULL:
        return null;
      default:
        throw new IllegalArgumentException("Unsupported " + s.getType());
    }
  }
}
