package io.nodelabeller.source.nvidia;

import java.util.ArrayList;
import java.util.List;

/** GFD's value shaping: sanitising, product names kept within 63 characters, the architecture family. */
final class Names {

    static final int MAX_VALUE = 63;

    private Names() {
    }

    /** Deletes characters outside {@code [A-Za-z0-9-_. ]}, then joins the whitespace-separated words with '-'. */
    static String sanitise(String s) {
        String kept = s.replaceAll("[^A-Za-z0-9\\-_. ]", "");
        return String.join("-", kept.trim().isEmpty() ? new String[0] : kept.trim().split("\\s+"));
    }

    /**
     * {@code <model>[-<suffix parts>]}, each part sanitised and empty parts dropped (GFD's getProductName).
     * <b>Fix</b>: when the result would exceed 63 characters the model part is shortened, never the suffix
     * ({@code -MIG-1g.24gb}, {@code -SHARED}), and a shortened model ends on a letter or digit.
     */
    static String product(String model, String... suffix) {
        List<String> tail = new ArrayList<>();
        for (String s : suffix) {
            String part = sanitise(s);
            if (!part.isEmpty()) {
                tail.add(part);
            }
        }
        String end = tail.isEmpty() ? "" : "-" + String.join("-", tail);
        String head = sanitise(model);
        if (head.length() + end.length() > MAX_VALUE) {
            head = head.substring(0, Math.max(0, MAX_VALUE - end.length()));
            int cut = head.length();
            while (cut > 0 && !Character.isLetterOrDigit(head.charAt(cut - 1))) {
                cut--;
            }
            head = head.substring(0, cut);
        }
        if (head.isEmpty()) {
            return end.isEmpty() ? "" : end.substring(1);
        }
        return head + end;
    }

    /** The per-model keys' part before the model: {@code gpu.model.<model>.<field>}. */
    static final String MODEL_PREFIX = "gpu.model.";
    /**
     * The longest model part of a per-model key. Fixed: it is what kept {@code gpu.model.<model>.compute.major} within
     * 63 characters when the keys were introduced, and a smaller one would rename keys in use. The fields are bounded
     * instead ({@link GpuLabels#TWIN_FIELD_MAX}).
     */
    static final int MODEL_KEY_MAX = 39;
    /** Hex digits of the name's SHA-256 that a shortened model part ends with. */
    private static final int MODEL_HASH = 8;

    /**
     * The model as the per-model label keys spell it ({@code gpu.model.<model>.count}): the NVML name sanitised as
     * {@code gpu.product} is, without leading or trailing punctuation ("Tesla V100-SXM2-32GB" →
     * "Tesla-V100-SXM2-32GB"). A longer one than {@link #MODEL_KEY_MAX} keeps its first characters and ends with '-'
     * and 8 hex digits of the sanitised name's SHA-256: the same name always gives the same key, and two long names
     * that begin alike stay apart. Empty when no character is left.
     */
    static String modelKey(String name) {
        String key = sanitise(name).replaceAll("^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "");
        if (key.length() <= MODEL_KEY_MAX) {
            return key;
        }
        String hash;
        try {
            hash = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8))).substring(0, MODEL_HASH);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        String head = key.substring(0, MODEL_KEY_MAX - MODEL_HASH - 1).replaceAll("[^A-Za-z0-9]+$", "");
        return head + "-" + hash;
    }

    /** The architecture family of a CUDA compute capability (GFD's getArchFamily). */
    static String family(int major, int minor) {
        return switch (major) {
            case 1 -> "tesla";
            case 2 -> "fermi";
            case 3 -> "kepler";
            case 5 -> "maxwell";
            case 6 -> "pascal";
            case 7 -> minor < 5 ? "volta" : "turing";
            case 8 -> minor < 9 ? "ampere" : "ada-lovelace";
            case 9 -> "hopper";
            case 10, 12 -> "blackwell";
            case 13 -> "rubin";
            default -> "undefined";
        };
    }

    /** A MIG profile as used in label keys and products: '+' becomes '.' ({@code 1g.10gb+me} → {@code 1g.10gb.me}). */
    static String profile(String raw) {
        return raw.replace('+', '.');
    }

    /** "GPU 3", "GPU 0..7" (consecutive) or "GPU 0,2,5". */
    static String gpus(List<Integer> indices) {
        if (indices.isEmpty()) {
            return "no GPU";
        }
        boolean consecutive = true;
        for (int i = 1; i < indices.size(); i++) {
            consecutive &= indices.get(i) == indices.get(i - 1) + 1;
        }
        if (indices.size() == 1) {
            return "GPU " + indices.get(0);
        }
        if (consecutive) {
            return "GPU " + indices.get(0) + ".." + indices.get(indices.size() - 1);
        }
        StringBuilder sb = new StringBuilder("GPU ");
        for (int i = 0; i < indices.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(indices.get(i));
        }
        return sb.toString();
    }
}
