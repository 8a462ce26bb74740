package io.frsm.server.node;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.Message;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Fills every field of a protobuf message, by reflection over its descriptor and recursively, with
 * values drawn from each type's extremes (0, 1, the validated bounds 2³¹−1 and 2⁶²−1 and one
 * beyond, the type's maximum, the top bit set, −1 as unsigned) or at random: the generator of
 * {@link WireFieldPropertyIT}. Of a {@code oneof} it sets one field (or, rarely, none); a repeated
 * field gets 0-3 elements; an enum field any of its values or an unknown number. Byte fields are
 * empty, short, at the key limit or one beyond it, or (rarely) beyond the value limit; a non-empty
 * one of ordinary size starts with {@link #KEY_PREFIX}, so a key it makes never is a key the test
 * checks. Records every field it sets ({@link #driven()}), so a test can show that none was missed.
 * Not thread-safe.
 */
final class WireFields {
  /** Every key the generator makes of ordinary size begins with this. */
  static final byte[] KEY_PREFIX = "fuzz/".getBytes(StandardCharsets.US_ASCII);

  /** The node's default key limit (lsm.maxKeySizeBytes). */
  private static final int KEY_LIMIT = 64 * 1024;

  /** The node's default value limit (lsm.maxValueSizeBytes). */
  private static final int VALUE_LIMIT = 1024 * 1024;

  private static final int MAX_DEPTH = 5;

  private static final long TWO_62 = 1L << 62;

  private static final long[] LONGS = {
    0,
    1,
    2,
    TWO_62 - 2,
    TWO_62 - 1,
    TWO_62,
    TWO_62 + 1,
    Long.MAX_VALUE - 1,
    Long.MAX_VALUE,
    Long.MIN_VALUE,
    Long.MIN_VALUE + 1,
    -2,
    -1,
    Integer.MAX_VALUE,
    1L << 32,
  };

  private static final int[] INTS = {
    0, 1, 2, 3, 65_535, 65_536, Integer.MAX_VALUE - 1, Integer.MAX_VALUE, Integer.MIN_VALUE, -1,
  };

  private final SplittableRandom random;
  private final Set<String> driven = new TreeSet<>();

  WireFields(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** Every field (full name) that has been set at least once. */
  Set<String> driven() {
    return driven;
  }

  /** Every field of {@code type} and of the message types it holds, recursively (full names). */
  static Set<String> allFields(Descriptor type) {
    Set<String> all = new TreeSet<>();
    collect(type, all, new TreeSet<>());
    return all;
  }

  private static void collect(Descriptor type, Set<String> all, Set<String> seen) {
    if (!seen.add(type.getFullName())) {
      return;
    }
    for (FieldDescriptor f : type.getFields()) {
      all.add(f.getFullName());
      if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        collect(f.getMessageType(), all, seen);
      }
    }
  }

  /** A message of {@code builder}'s type with every field drawn; {@code builder} is filled. */
  <B extends Message.Builder> B fill(B builder) {
    fill(builder, 0);
    return builder;
  }

  /** One of the values a random number of this draw is. */
  boolean chance(double p) {
    return random.nextDouble() < p;
  }

  private void fill(Message.Builder b, int depth) {
    Descriptor type = b.getDescriptorForType();
    for (OneofDescriptor oneof : type.getRealOneofs()) {
      if (chance(0.05)) {
        continue; // no body at all, sometimes
      }
      List<FieldDescriptor> options = oneof.getFields();
      set(b, options.get(random.nextInt(options.size())), depth);
    }
    for (FieldDescriptor f : type.getFields()) {
      if (f.getRealContainingOneof() != null || chance(0.15)) {
        continue;
      }
      set(b, f, depth);
    }
  }

  private void set(Message.Builder b, FieldDescriptor f, int depth) {
    if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE && depth >= MAX_DEPTH) {
      return;
    }
    driven.add(f.getFullName());
    if (f.isRepeated()) {
      int n = random.nextInt(4);
      for (int i = 0; i < n; i++) {
        b.addRepeatedField(f, value(b, f, depth));
      }
    } else {
      b.setField(f, value(b, f, depth));
    }
  }

  private Object value(Message.Builder b, FieldDescriptor f, int depth) {
    switch (f.getJavaType()) {
      case LONG:
        return aLong();
      case INT:
        return chance(0.7) ? INTS[random.nextInt(INTS.length)] : random.nextInt();
      case BOOLEAN:
        return random.nextBoolean();
      case FLOAT:
        return (float) random.nextDouble();
      case DOUBLE:
        return random.nextDouble();
      case STRING:
        return aString();
      case BYTE_STRING:
        return ByteString.copyFrom(someBytes());
      case ENUM:
        return anEnum(f.getEnumType());
      case MESSAGE:
        Message.Builder nested = b.newBuilderForField(f);
        fill(nested, depth + 1);
        return nested.build();
      default:
        throw new AssertionError("unhandled field type " + f.getJavaType());
    }
  }

  private long aLong() {
    int pick = random.nextInt(10);
    if (pick < 6) {
      return LONGS[random.nextInt(LONGS.length)];
    }
    if (pick < 8) {
      long nowMicros = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
      return nowMicros + random.nextLong(-1_000_000_000L, 1_000_000_000L);
    }
    return random.nextLong();
  }

  private Object anEnum(EnumDescriptor type) {
    if (chance(0.2)) {
      return type.findValueByNumberCreatingIfUnknown(chance(0.5) ? -1 : 1000 + random.nextInt(99));
    }
    return type.getValues().get(random.nextInt(type.getValues().size()));
  }

  private String aString() {
    switch (random.nextInt(8)) {
      case 0:
        return "";
      case 1:
        return TestCluster.CLUSTER_ID;
      case 2:
        return "../../etc/passwd";
      case 3:
        return "0123456789abcdef";
      case 4:
        return "x".repeat(2000 + random.nextInt(2000));
      case 5:
        return "\u0000\uffff\ud83d\ude00é";
      default:
        StringBuilder s = new StringBuilder();
        int n = random.nextInt(40);
        for (int i = 0; i < n; i++) {
          s.append((char) (32 + random.nextInt(95)));
        }
        return s.toString();
    }
  }

  private byte[] someBytes() {
    int pick = random.nextInt(20);
    int size;
    if (pick == 0) {
      return new byte[0];
    } else if (pick == 1) {
      size = KEY_LIMIT;
    } else if (pick == 2) {
      size = KEY_LIMIT + 1;
    } else if (pick == 3 && chance(0.3)) {
      size = VALUE_LIMIT + 1;
    } else {
      size = KEY_PREFIX.length + random.nextInt(40);
    }
    byte[] b = new byte[size];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) random.nextInt(256);
    }
    System.arraycopy(KEY_PREFIX, 0, b, 0, Math.min(KEY_PREFIX.length, b.length));
    return b;
  }

  /** The fields of {@code all} not yet driven, for a failure message. */
  List<String> missing(Set<String> all) {
    List<String> missing = new ArrayList<>();
    for (String f : all) {
      if (!driven.contains(f)) {
        missing.add(f);
      }
    }
    return missing;
  }
}
