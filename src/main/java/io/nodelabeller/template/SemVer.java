package io.nodelabeller.template;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;

import java.util.ArrayList;
import java.util.List;

/**
 * Sprig's {@code semver} and {@code semverCompare} (semver.go), which call Masterminds semver v3.3.0: its lenient
 * {@code NewVersion} (version.go), its comparison (pre-releases lower than the release, compared part by part,
 * numbers as numbers, build metadata ignored) and its constraint language (constraints.go: {@code = != > < >= <= ~ ~>
 * ^}, {@code x}/{@code *} wildcards, {@code a - b} ranges, {@code ,} or spaces for AND, {@code ||} for OR; a
 * pre-release version satisfies only a constraint that has a pre-release). A template reads a version's
 * {@code .Major .Minor .Patch .Prerelease .Metadata .Original} and prints it as {@code String()} does.
 */
final class SemVer implements Comparable<SemVer>, Receiver {

    private static final String CV = "v?([0-9|x|X|\\*]+)(\\.[0-9|x|X|\\*]+)?(\\.[0-9|x|X|\\*]+)?"
            + "(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?";
    private static final String OPS = "=||!=|>|<|>=|=>|<=|=<|~|~>|\\^";
    private static final Pattern VERSION = Pattern.compile("^v?([0-9]+)(\\.[0-9]+)?(\\.[0-9]+)?"
            + "(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?$");
    private static final Pattern CONSTRAINT = Pattern.compile("^\\s*(" + OPS + ")\\s*(" + CV + ")\\s*$");
    private static final Pattern RANGE = Pattern.compile("\\s*(" + CV + ")\\s+-\\s+(" + CV + ")\\s*");
    private static final Pattern FIND = Pattern.compile("(" + OPS + ")\\s*(" + CV + ")");
    private static final Pattern VALID = Pattern.compile("^(\\s*(" + OPS + ")\\s*(" + CV + ")\\s*)((?:\\s+|,\\s*)("
            + OPS + ")\\s*(" + CV + ")\\s*)*$");

    final long major;
    final long minor;
    final long patch;
    final String pre;
    final String metadata;
    private final String original;

    private SemVer(long major, long minor, long patch, String pre, String metadata, String original) {
        this.major = major;
        this.minor = minor;
        this.patch = patch;
        this.pre = pre;
        this.metadata = metadata;
        this.original = original;
    }

    /** NewVersion; throws with semver's message when {@code v} is none. */
    static SemVer parse(String v) throws TemplateException {
        Matcher m = VERSION.matcher(v);
        if (!m.matches()) {
            throw new TemplateException("Invalid Semantic Version");
        }
        String pre = m.group(5) == null ? "" : m.group(5);
        for (String id : pre.isEmpty() ? new String[0] : pre.split("\\.")) {
            if (id.chars().allMatch(Character::isDigit) && id.length() > 1 && id.charAt(0) == '0') {
                throw new TemplateException("Version segment starts with 0");
            }
        }
        try {
            return new SemVer(Long.parseUnsignedLong(m.group(1)),
                    m.group(2) == null ? 0 : Long.parseUnsignedLong(m.group(2).substring(1)),
                    m.group(3) == null ? 0 : Long.parseUnsignedLong(m.group(3).substring(1)), pre,
                    m.group(8) == null ? "" : m.group(8), v);
        } catch (NumberFormatException e) {
            throw new TemplateException("Error parsing version segment: value out of range");
        }
    }

    @Override
    public boolean has(String name) {
        return method(name) != null;
    }

    /** The methods of *semver.Version a template calls, none of which takes an argument. */
    @Override
    public Object call(String name, java.util.List<Object> args) throws TemplateException {
        Functions.arity(name, args, 0);
        return method(name);
    }

    /** A method of *semver.Version that takes no argument, or null. */
    private Object method(String name) {
        return switch (name) {
            case "Major" -> major;
            case "Minor" -> minor;
            case "Patch" -> patch;
            case "Prerelease" -> pre;
            case "Metadata" -> metadata;
            case "Original" -> original;
            case "String" -> toString();
            default -> null;
        };
    }

    @Override
    public String toString() {
        return Long.toUnsignedString(major) + "." + Long.toUnsignedString(minor) + "." + Long.toUnsignedString(patch)
                + (pre.isEmpty() ? "" : "-" + pre) + (metadata.isEmpty() ? "" : "+" + metadata);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SemVer s && compareTo(s) == 0;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(major) * 31 + Long.hashCode(minor) * 17 + Long.hashCode(patch);
    }

    @Override
    public int compareTo(SemVer o) {
        int c = Long.compareUnsigned(major, o.major);
        c = c != 0 ? c : Long.compareUnsigned(minor, o.minor);
        c = c != 0 ? c : Long.compareUnsigned(patch, o.patch);
        if (c != 0) {
            return c;
        }
        if (pre.isEmpty() || o.pre.isEmpty()) {
            return pre.isEmpty() == o.pre.isEmpty() ? 0 : pre.isEmpty() ? 1 : -1;
        }
        String[] a = pre.split("\\.", -1);
        String[] b = o.pre.split("\\.", -1);
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            int d = comparePart(i < a.length ? a[i] : "", i < b.length ? b[i] : "");
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }

    private static int comparePart(String s, String o) {
        if (s.equals(o)) {
            return 0;
        }
        if (s.isEmpty()) {
            return -1;
        }
        if (o.isEmpty()) {
            return 1;
        }
        Long si = unsigned(s);
        Long oi = unsigned(o);
        if (si == null && oi == null) {
            return s.compareTo(o) > 0 ? 1 : -1;
        }
        if (oi == null) {
            return -1; // a number is lower than text
        }
        if (si == null) {
            return 1;
        }
        return Long.compareUnsigned(si, oi) > 0 ? 1 : -1;
    }

    private static Long unsigned(String s) {
        try {
            return s.chars().allMatch(Character::isDigit) ? Long.parseUnsignedLong(s) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** One constraint: its operator, its version and which parts were wildcards or absent. */
    private record Constraint(String op, String orig, SemVer con, boolean dirty, boolean minorDirty, boolean patchDirty) {

        boolean check(SemVer v) {
            if (!op.equals("!=") && !v.pre.isEmpty() && con.pre.isEmpty()) {
                return false; // a pre-release only where the constraint names one
            }
            return switch (op) {
                case "", "=" -> dirty ? tilde(v) : v.compareTo(con) == 0;
                case "!=" -> notEqual(v);
                case ">" -> greater(v);
                case "<" -> v.compareTo(con) < 0;
                case ">=", "=>" -> v.compareTo(con) >= 0;
                case "<=", "=<" -> lessOrEqual(v);
                case "~", "~>" -> tilde(v);
                default -> caret(v);
            };
        }

        private boolean notEqual(SemVer v) {
            if (dirty) {
                if (!v.pre.isEmpty() && con.pre.isEmpty()) {
                    return false;
                }
                if (con.major != v.major) {
                    return true;
                }
                if (con.minor != v.minor && !minorDirty) {
                    return true;
                } else if (minorDirty) {
                    return false;
                } else if (con.patch != v.patch && !patchDirty) {
                    return true;
                } else if (patchDirty) {
                    return (!v.pre.isEmpty() || !con.pre.isEmpty())
                            && new SemVer(0, 0, 0, v.pre, "", "").compareTo(new SemVer(0, 0, 0, con.pre, "", "")) != 0;
                }
            }
            return v.compareTo(con) != 0;
        }

        private boolean greater(SemVer v) {
            if (!dirty) {
                return v.compareTo(con) > 0;
            }
            if (Long.compareUnsigned(v.major, con.major) != 0) {
                return Long.compareUnsigned(v.major, con.major) > 0;
            }
            if (minorDirty) {
                return false;
            }
            if (patchDirty) {
                return Long.compareUnsigned(v.minor, con.minor) > 0;
            }
            return v.compareTo(con) > 0;
        }

        private boolean lessOrEqual(SemVer v) {
            if (!dirty) {
                return v.compareTo(con) <= 0;
            }
            if (Long.compareUnsigned(v.major, con.major) > 0) {
                return false;
            }
            return !(v.major == con.major && Long.compareUnsigned(v.minor, con.minor) > 0 && !minorDirty);
        }

        private boolean tilde(SemVer v) {
            if (v.compareTo(con) < 0) {
                return false;
            }
            if (con.major == 0 && con.minor == 0 && con.patch == 0 && !minorDirty && !patchDirty) {
                return true;
            }
            return v.major == con.major && (v.minor == con.minor || minorDirty);
        }

        private boolean caret(SemVer v) {
            if (v.compareTo(con) < 0) {
                return false;
            }
            if (con.major > 0 || minorDirty) {
                return v.major == con.major;
            }
            if (v.major > 0) {
                return false;
            }
            if (con.minor > 0 || patchDirty) {
                return v.minor == con.minor;
            }
            if (v.minor > 0) {
                return false;
            }
            return con.patch == v.patch;
        }
    }

    /** Constraints.Check of NewConstraint({@code constraint}): an OR of ANDs. */
    static boolean satisfies(String constraint, SemVer v) throws TemplateException {
        for (List<Constraint> and : parseConstraints(constraint)) {
            boolean all = true;
            for (Constraint c : and) {
                if (!c.check(v)) {
                    all = false;
                    break;
                }
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    private static List<List<Constraint>> parseConstraints(String c) throws TemplateException {
        String rewritten = rewriteRange(c);
        List<List<Constraint>> out = new ArrayList<>();
        for (String or : rewritten.split("\\|\\|", -1)) {
            if (!VALID.matcher(or).find()) {
                throw new TemplateException("improper constraint: " + or);
            }
            List<String> found = new ArrayList<>();
            Matcher m = FIND.matcher(or);
            while (m.find()) {
                found.add(m.group());
            }
            if (found.isEmpty()) {
                found.add(or);
            }
            List<Constraint> and = new ArrayList<>();
            for (String s : found) {
                and.add(parseConstraint(s));
            }
            out.add(and);
        }
        return out;
    }

    private static Constraint parseConstraint(String c) throws TemplateException {
        if (c.isEmpty()) {
            return new Constraint("", c, new SemVer(0, 0, 0, "", "", "0.0.0"), true, false, false);
        }
        Matcher m = CONSTRAINT.matcher(c);
        if (!m.matches()) {
            throw new TemplateException("improper constraint: " + c);
        }
        String op = m.group(1);
        String major = m.group(3);
        String minor = m.group(4) == null ? "" : m.group(4);
        String patch = m.group(5) == null ? "" : m.group(5);
        String pre = m.group(6) == null ? "" : m.group(6);
        String ver = m.group(2);
        boolean dirty = false;
        boolean minorDirty = false;
        boolean patchDirty = false;
        if (isX(major) || major.isEmpty()) {
            ver = "0.0.0" + pre;
            dirty = true;
        } else if (isX(strip(minor)) || minor.isEmpty()) {
            minorDirty = true;
            dirty = true;
            ver = major + ".0.0" + pre;
        } else if (isX(strip(patch)) || patch.isEmpty()) {
            dirty = true;
            patchDirty = true;
            ver = major + minor + ".0" + pre;
        }
        SemVer con;
        try {
            con = parse(ver);
        } catch (TemplateException e) {
            throw new TemplateException("constraint Parser Error");
        }
        return new Constraint(op, m.group(2), con, dirty, minorDirty, patchDirty);
    }

    private static String strip(String part) {
        return part.startsWith(".") ? part.substring(1) : part;
    }

    private static boolean isX(String s) {
        return s.equals("x") || s.equals("*") || s.equals("X");
    }

    /** "1.2 - 1.4.5" → ">= 1.2, <= 1.4.5 ". */
    private static String rewriteRange(String c) {
        Matcher m = RANGE.matcher(c);
        StringBuilder out = new StringBuilder();
        int last = 0;
        while (m.find()) {
            out.append(c, last, m.start()).append(">= ").append(m.group(1)).append(", <= ").append(m.group(11)).append(' ');
            last = m.end();
        }
        return out.append(c.substring(last)).toString();
    }
}
