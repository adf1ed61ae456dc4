package io.palisade.coordinator.internal;


import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** An order-independent SHA-256 digest of table rows (the migration's completion digest; tests compare rows with it). */
public final class RowDigest {
    private RowDigest() {
    }

    public static String of(List<Map<String, Object>> rows) {
        List<String> lines = new ArrayList<>(rows.size());
        for (Map<String, Object> row : rows) {
            StringBuilder sb = new StringBuilder();
            new TreeMap<>(row).forEach((k, v) -> sb.append(k).append('=').append(text(v)).append('\u0001'));
            lines.add(sb.toString());
        }
        lines.sort(null);
        return ofText(String.join("\n", lines));
    }

    static String ofText(String text) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String text(Object v) {
        if (v instanceof byte[] b) {
            return HexFormat.of().formatHex(b);
        }
        if (v instanceof float[] f) {
            return Arrays.toString(f);
        }
        return String.valueOf(v);
    }
}
