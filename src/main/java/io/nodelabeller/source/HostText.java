package io.nodelabeller.source;

/** Text helpers for values read from host files, with the semantics of the Go functions NFD applies to them. */
public final class HostText {

    private HostText() {
    }

    /** Go's {@code strings.Trim(s, cutset)}: {@code s} without leading and trailing characters from {@code cutset}. */
    public static String trim(String s, String cutset) {
        int start = 0;
        int end = s.length();
        while (start < end && cutset.indexOf(s.charAt(start)) >= 0) {
            start++;
        }
        while (end > start && cutset.indexOf(s.charAt(end - 1)) >= 0) {
            end--;
        }
        return s.substring(start, end);
    }
}
