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
 * checks. Or it sets one field of a sound message ({@link #mutateOneField}). Records every field it
 * sets ({@link #driven()}), so a test can show that none was missed. Not thread-safe.
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

  /**
   * Sets one field of {@code builder} to a drawn value, the rest left as they are: from a sound
   * message, one that reaches the checks behind the first field a wholly random one fails. The
   * field is one of the type's (or, where a set message field is picked, one of that message's,
   * recursively).
   */
  <B extends Message.Builder> B mutateOneField(B builder) {
    mutateOne(builder, 0);
    return builder;
  }

  private void mutateOne(Message.Builder b, int depth) {
    // Of a oneof only the field set (another would replace the sound body with a random one).
    List<FieldDescriptor> fields = new ArrayList<>();
    for (FieldDescriptor f : b.getDescriptorForType().getFields()) {
      if (f.getRealContainingOneof() == null || b.hasField(f)) {
        fields.add(f);
      }
    }
    FieldDescriptor f = fields.get(random.nextInt(fields.size()));
    boolean nested =
        f.getJavaType() == FieldDescriptor.JavaType.MESSAGE
            && !f.isRepeated()
            && b.hasField(f)
            && depth < MAX_DEPTH;
    if (nested && chance(0.7)) {
      mutateOne(b.getFieldBuilder(f), depth + 1);
      return;
    }
    if (f.isRepeated()) {
      b.clearField(f);
    }
    set(b, f, depth);
  }

  /** True with probability {@code p}. */
  boolean chance(double p) {
    return random.nextDouble() < p;
  }

  long nextLong() {
    return random.nextLong();
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
    int pick = random.nextInt(12);
    int size;
    if (pick == 0) {
      return new byte[0];
    } else if (pick == 1) {
      size = KEY_LIMIT;
    } else if (pick == 2) {
      size = KEY_LIMIT + 1;
    } else if (pick == 3 && chance(0.2)) {
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

  /**
   * {@code sound} once per value of {@link #extremes} of each of its leaf fields (the scalar fields
   * of it and of the messages set in it, a oneof's set field only), the rest unchanged; and once
   * without each message field set in it. Deterministic: every field meets every extreme.
   */
  static List<Message> eachLeafAtEachExtreme(Message sound) {
    return variants(sound, 0);
  }

  private static List<Message> variants(Message m, int depth) {
    List<Message> out = new ArrayList<>();
    for (FieldDescriptor f : m.getDescriptorForType().getFields()) {
      if ((f.getRealContainingOneof() != null && !m.hasField(f)) || f.isRepeated()) {
        continue;
      }
      if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        if (m.hasField(f) && depth < MAX_DEPTH) {
          out.add(m.toBuilder().clearField(f).build());
          for (Message inner : variants((Message) m.getField(f), depth + 1)) {
            out.add(m.toBuilder().setField(f, inner).build());
          }
        }
        continue;
      }
      for (Object v : extremes(f)) {
        out.add(m.toBuilder().setField(f, v).build());
      }
    }
    return out;
  }

  /** The extreme values of a scalar field's type (a key-like byte field keeps the prefix). */
  static List<Object> extremes(FieldDescriptor f) {
    List<Object> values = new ArrayList<>();
    switch (f.getJavaType()) {
      case LONG -> {
        for (long v : LONGS) {
          values.add(v);
        }
      }
      case INT -> {
        for (int v : INTS) {
          values.add(v);
        }
      }
      case BOOLEAN -> values.addAll(List.of(true, false));
      case FLOAT -> values.addAll(List.of(Float.NaN, Float.MAX_VALUE, -0.0f));
      case DOUBLE -> values.addAll(List.of(Double.NaN, Double.MAX_VALUE, -0.0));
      case STRING -> values.addAll(List.of("", "x".repeat(5000), "\u0000\uffff"));
      case BYTE_STRING -> {
        byte[] atLimit = new byte[KEY_LIMIT + 1];
        System.arraycopy(KEY_PREFIX, 0, atLimit, 0, KEY_PREFIX.length);
        values.add(ByteString.EMPTY);
        values.add(ByteString.copyFrom(atLimit, 0, KEY_LIMIT));
        values.add(ByteString.copyFrom(atLimit));
      }
      case ENUM -> {
        values.addAll(f.getEnumType().getValues());
        values.add(f.getEnumType().findValueByNumberCreatingIfUnknown(99));
      }
      default -> throw new AssertionError("not a scalar: " + f);
    }
    return values;
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
