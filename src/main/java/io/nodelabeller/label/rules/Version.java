package io.nodelabeller.label.rules;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;

/**
 * A version as NFD's {@code type: version} reads one (pkg/apis/nfd/nodefeaturerule/expression.go,
 * {@code extractVersion}): Masterminds semver v3's lenient parse ({@code NewVersion}: an optional {@code v}, one to
 * three dot-separated numbers, missing ones 0, then an optional {@code -pre-release} and {@code +build}), with the
 * pre-release dropped and the build ignored, so that {@code 5.15.0-91-generic} is 5.15.0 and {@code 550.54} is
 * 550.54.0. Compared number by number.
 *
 * @param major the first number
 * @param minor the second, 0 when absent
 * @param patch the third, 0 when absent
 */
record Version(long major, long minor, long patch) implements Comparable<Version> {

    /** The lenient form: v?N(.N)?(.N)?(-pre)?(+build)?, each identifier of [0-9A-Za-z-]. */
    private static final Pattern FORM = Pattern.compile("^v?([0-9]+)(\\.[0-9]+)?(\\.[0-9]+)?"
            + "(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?$");

    /** The version {@code s} is, or null when it is none (as semver's parse error). */
    static Version parse(String s) {
        Matcher m = FORM.matcher(s);
        if (!m.matches()) {
            return null;
        }
        String pre = m.group(5);
        if (pre != null) {
            for (String id : pre.split("\\.")) {
                // a numeric pre-release identifier may not start with 0 (semver's validatePrerelease)
                if (id.chars().allMatch(Character::isDigit) && id.length() > 1 && id.charAt(0) == '0') {
                    return null;
                }
            }
        }
        try {
            return new Version(number(m.group(1)), m.group(2) == null ? 0 : number(m.group(2).substring(1)),
                    m.group(3) == null ? 0 : number(m.group(3).substring(1)));
        } catch (NumberFormatException e) {
            return null; // beyond uint64
        }
    }

    /** A segment as Go's strconv.ParseUint(s, 10, 64). */
    private static long number(String digits) {
        return Long.parseUnsignedLong(digits);
    }

    @Override
    public int compareTo(Version o) {
        int c = Long.compareUnsigned(major, o.major);
        if (c == 0) {
            c = Long.compareUnsigned(minor, o.minor);
        }
        return c != 0 ? c : Long.compareUnsigned(patch, o.patch);
    }
}
