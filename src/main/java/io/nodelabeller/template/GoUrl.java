package io.nodelabeller.template;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A URL as Go's net/url parses and prints it, for Sprig's {@code urlParse} and {@code urlJoin} (url.go of Sprig
 * v3.3.0: {@code url.Parse}, {@code URL.Hostname}, {@code Userinfo.String}, {@code URL.String}). NFD v0.19 is built
 * with Go 1.26 and its default settings, so hosts are read as Go 1.26 reads them: the first colon of a host not in
 * brackets starts its port, which is digits or nothing ({@code http://::1/} and {@code http://x:80:80/} are errors);
 * brackets only at the start of a host and around an IPv6 address ({@code [127.0.0.1]}, {@code [example.com]} and
 * {@code a[::1]} are errors).
 *
 * <p>The rules, per component (RFC 3986 as Go applies it): a scheme is a letter followed by letters, digits,
 * {@code + - .}, up to the first colon, and is lower-cased; a URL whose scheme is not followed by {@code /} is opaque;
 * {@code //} starts an authority ({@code userinfo@host}, split at the last {@code @}); percent escapes are decoded in
 * the user name, password, host (there only bytes ≥ 0x80 and {@code %25}; an IPv6 zone may escape more), path and
 * fragment, not in the query; the path and fragment keep their written form when it is not the form Go would write. Go strings are
 * bytes: escapes are of UTF-8 bytes, and a decoded byte sequence that is not UTF-8 becomes U+FFFD here.
 */
final class GoUrl {

    private enum Mode { PATH, HOST, ZONE, USER_PASSWORD, QUERY_COMPONENT, FRAGMENT }

    final String scheme;
    final String opaque;
    /** null: no user information; else the user name, and the password when {@link #password} is not null. */
    final String username;
    final String password;
    final String host;
    final String path;
    final String rawPath;
    final boolean omitHost;
    final boolean forceQuery;
    final String rawQuery;
    final String fragment;
    final String rawFragment;

    GoUrl(String scheme, String opaque, String username, String password, String host, String path, String rawPath,
          boolean omitHost, boolean forceQuery, String rawQuery, String fragment, String rawFragment) {
        this.scheme = scheme;
        this.opaque = opaque;
        this.username = username;
        this.password = password;
        this.host = host;
        this.path = path;
        this.rawPath = rawPath;
        this.omitHost = omitHost;
        this.forceQuery = forceQuery;
        this.rawQuery = rawQuery;
        this.fragment = fragment;
        this.rawFragment = rawFragment;
    }

    /** A URL not read from text (urlJoin's): no raw forms, no forced query. */
    static GoUrl of(String scheme, String opaque, String username, String password, String host, String path,
                    String rawQuery, String fragment) {
        return new GoUrl(scheme, opaque, username, password, host, path, "", false, false, rawQuery, fragment, "");
    }

    /** Why a URL is refused: Go's message ({@code parse "URL": reason}). */
    static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message);
        }
    }

    /** A reason, wrapped with the text it concerns by the caller. */
    private static final class Reason extends Exception {
        private static final long serialVersionUID = 1L;

        Reason(String message) {
            super(message);
        }
    }

    // ---- escaping ----

    private static boolean alnum(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9';
    }

    /** Whether byte {@code c} is written %XX in a component of this mode. */
    private static boolean mustEscape(int c, Mode mode) {
        if (alnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            return false;
        }
        if ((mode == Mode.HOST || mode == Mode.ZONE) && "!$&'()*+,;=:[]<>\"".indexOf(c) >= 0) {
            return false; // sub-delims, the port's colon, an IPv6 literal's brackets, and what Go lets through
        }
        if ("$&+,/:;=?@".indexOf(c) >= 0) { // reserved characters: each component keeps some as they are
            return switch (mode) {
                case PATH -> c == '?';
                case USER_PASSWORD -> c == '@' || c == '/' || c == '?' || c == ':';
                case QUERY_COMPONENT -> true;
                case FRAGMENT -> false;
                case HOST, ZONE -> true;
            };
        }
        return !(mode == Mode.FRAGMENT && "!()*".indexOf(c) >= 0);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** url.QueryEscape: text/template's {@code urlquery}. */
    static String queryEscape(String s) {
        return escape(s, Mode.QUERY_COMPONENT);
    }

    private static String escape(String s, Mode mode) {
        StringBuilder out = new StringBuilder();
        for (byte x : bytes(s)) {
            int c = x & 0xff;
            if (c == ' ' && mode == Mode.QUERY_COMPONENT) {
                out.append('+');
            } else if (mustEscape(c, mode)) {
                out.append('%').append("0123456789ABCDEF".charAt(c >> 4)).append("0123456789ABCDEF".charAt(c & 15));
            } else {
                out.append((char) c);
            }
        }
        return out.toString();
    }

    private static int hex(int c) {
        return Character.digit(c, 16);
    }

    private static String quote(byte[] b, int from, int to) {
        return GoFormat.quote(new String(b, from, to - from, StandardCharsets.ISO_8859_1));
    }

    private static String unescape(String s, Mode mode) throws Reason {
        byte[] b = bytes(s);
        ByteArrayOutputStream out = new ByteArrayOutputStream(b.length);
        for (int i = 0; i < b.length; i++) {
            int c = b[i] & 0xff;
            if (c == '%') {
                if (i + 2 >= b.length || hex(b[i + 1]) < 0 || hex(b[i + 2]) < 0) {
                    throw new Reason("invalid URL escape " + quote(b, i, Math.min(b.length, i + 3)));
                }
                int v = hex(b[i + 1]) << 4 | hex(b[i + 2]);
                boolean percent = v == '%';
                // a host escapes only bytes that are not ASCII, but %25 before an IPv6 zone; a zone may escape what it
                // could hold written out, and spaces
                if (mode == Mode.HOST && hex(b[i + 1]) < 8 && !percent
                        || mode == Mode.ZONE && !percent && v != ' ' && mustEscape(v, Mode.HOST)) {
                    throw new Reason("invalid URL escape " + quote(b, i, i + 3));
                }
                out.write(v);
                i += 2;
            } else if (c == '+') {
                out.write(mode == Mode.QUERY_COMPONENT ? ' ' : '+');
            } else {
                if ((mode == Mode.HOST || mode == Mode.ZONE) && c < 0x80 && mustEscape(c, mode)) {
                    throw new Reason("invalid character " + quote(b, i, i + 1) + " in host name");
                }
                out.write(c);
            }
        }
        return text(out.toByteArray());
    }

    // ---- parsing ----

    static GoUrl parse(String raw) throws Invalid {
        int hash = raw.indexOf('#');
        String u = hash < 0 ? raw : raw.substring(0, hash);
        String frag = hash < 0 ? "" : raw.substring(hash + 1);
        GoUrl url;
        try {
            url = parseWithoutFragment(u);
        } catch (Reason r) {
            throw new Invalid("parse " + GoFormat.quote(u) + ": " + r.getMessage());
        }
        if (frag.isEmpty()) {
            return url;
        }
        String fragment;
        try {
            fragment = unescape(frag, Mode.FRAGMENT);
        } catch (Reason r) {
            throw new Invalid("parse " + GoFormat.quote(raw) + ": " + r.getMessage());
        }
        return new GoUrl(url.scheme, url.opaque, url.username, url.password, url.host, url.path, url.rawPath,
                url.omitHost, url.forceQuery, url.rawQuery, fragment,
                escape(fragment, Mode.FRAGMENT).equals(frag) ? "" : frag);
    }

    private static GoUrl parseWithoutFragment(String raw) throws Reason {
        for (int i = 0; i < raw.length(); i++) {
            if (raw.charAt(i) < ' ' || raw.charAt(i) == 0x7f) {
                throw new Reason("net/url: invalid control character in URL");
            }
        }
        if (raw.equals("*")) {
            return new GoUrl("", "", null, null, "", "*", "", false, false, "", "", "");
        }
        String scheme = "";
        String rest = raw;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
                continue;
            }
            if (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
                if (i == 0) {
                    break; // a scheme starts with a letter: this is a path
                }
                continue;
            }
            if (c == ':') {
                if (i == 0) {
                    throw new Reason("missing protocol scheme");
                }
                scheme = raw.substring(0, i).toLowerCase(java.util.Locale.ROOT);
                rest = raw.substring(i + 1);
            }
            break;
        }
        boolean forceQuery = false;
        String rawQuery = "";
        int q = rest.indexOf('?');
        if (q >= 0 && q == rest.length() - 1) {
            forceQuery = true; // a lone '?' at the end: an empty query, kept
            rest = rest.substring(0, q);
        } else if (q >= 0) {
            rawQuery = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        if (!rest.startsWith("/")) {
            if (!scheme.isEmpty()) {
                return new GoUrl(scheme, rest, null, null, "", "", "", false, forceQuery, rawQuery, "", "");
            }
            int slash = rest.indexOf('/');
            if ((slash < 0 ? rest : rest.substring(0, slash)).contains(":")) {
                throw new Reason("first path segment in URL cannot contain colon");
            }
        }
        String username = null;
        String password = null;
        String host = "";
        boolean omitHost = false;
        if ((!scheme.isEmpty() || !rest.startsWith("///")) && rest.startsWith("//")) {
            String authority = rest.substring(2);
            int slash = authority.indexOf('/');
            rest = slash < 0 ? "" : authority.substring(slash);
            authority = slash < 0 ? authority : authority.substring(0, slash);
            int at = authority.lastIndexOf('@');
            host = parseHost(at < 0 ? authority : authority.substring(at + 1));
            if (at >= 0) {
                String userinfo = authority.substring(0, at);
                if (!userinfo.chars().allMatch(c -> alnum(c) || "-._:~!$&'()*+,;=%@".indexOf(c) >= 0)) {
                    throw new Reason("net/url: invalid userinfo");
                }
                int colon = userinfo.indexOf(':');
                username = unescape(colon < 0 ? userinfo : userinfo.substring(0, colon), Mode.USER_PASSWORD);
                password = colon < 0 ? null : unescape(userinfo.substring(colon + 1), Mode.USER_PASSWORD);
            }
        } else if (!scheme.isEmpty() && rest.startsWith("/")) {
            omitHost = true; // scheme:/path has no authority, where scheme:///path has an empty one
        }
        String path = unescape(rest, Mode.PATH);
        return new GoUrl(scheme, "", username, password, host, path, escape(path, Mode.PATH).equals(rest) ? "" : rest,
                omitHost, forceQuery, rawQuery, "", "");
    }

    private static boolean optionalPort(String s) {
        return s.isEmpty() || s.charAt(0) == ':' && s.chars().skip(1).allMatch(c -> c >= '0' && c <= '9');
    }

    /** {@code colonPort} as a host ends: nothing, or ':' and digits. */
    private static void requirePort(String colonPort) throws Reason {
        if (!optionalPort(colonPort)) {
            throw new Reason("invalid port " + GoFormat.quote(colonPort) + " after host");
        }
    }

    private static String parseHost(String host) throws Reason {
        int open = host.lastIndexOf('[');
        if (open > 0) {
            throw new Reason("invalid IP-literal");
        }
        if (open == 0) {
            int close = host.lastIndexOf(']');
            if (close < 0) {
                throw new Reason("missing ']' in host");
            }
            String colonPort = host.substring(close + 1);
            requirePort(colonPort);
            String literal = host.substring(1, close);
            int zone = literal.indexOf("%25");
            String address = zone < 0 ? unescape(literal, Mode.HOST)
                    : unescape(literal.substring(0, zone), Mode.HOST) + unescape(literal.substring(zone), Mode.ZONE);
            String why = IpLiteral.check(address);
            if (why != null) {
                throw new Reason(why);
            }
            return "[" + address + "]" + colonPort;
        }
        int colon = host.indexOf(':');
        if (colon >= 0) {
            requirePort(host.substring(colon));
        }
        return unescape(host, Mode.HOST);
    }

    // ---- what Sprig reads of it ----

    /** The host without its port, and without the brackets of an IPv6 address. */
    String hostname() {
        String h = host;
        int colon = h.lastIndexOf(':');
        if (colon >= 0 && optionalPort(h.substring(colon))) {
            h = h.substring(0, colon);
        }
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    /** The user information as written in a URL: {@code name[:password]}, escaped; "" without any. */
    String userinfo() {
        if (username == null) {
            return "";
        }
        return escape(username, Mode.USER_PASSWORD) + (password == null ? "" : ":" + escape(password, Mode.USER_PASSWORD));
    }

    private String escapedPath() {
        String raw = asRead(rawPath, path, Mode.PATH);
        return raw != null ? raw : path.equals("*") ? "*" : escape(path, Mode.PATH);
    }

    private String escapedFragment() {
        String raw = asRead(rawFragment, fragment, Mode.FRAGMENT);
        return raw != null ? raw : escape(fragment, Mode.FRAGMENT);
    }

    /** A component's form as read, when it is a valid escaping of the component; else null (Go writes it anew). */
    private static String asRead(String raw, String decoded, Mode mode) {
        if (raw.isEmpty() || !validEncoded(raw, mode)) {
            return null;
        }
        try {
            return unescape(raw, mode).equals(decoded) ? raw : null;
        } catch (Reason notAnEscaping) {
            return null;
        }
    }

    /** Whether a raw form holds only what its component may hold as it is (sub-delims, : @ [ ] and escapes). */
    private static boolean validEncoded(String s, Mode mode) {
        for (byte x : bytes(s)) {
            int c = x & 0xff;
            if ("!$&'()*+,;=:@[]%".indexOf(c) < 0 && mustEscape(c, mode)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        if (!scheme.isEmpty()) {
            out.append(scheme).append(':');
        }
        if (!opaque.isEmpty()) {
            out.append(opaque);
        } else {
            if ((!scheme.isEmpty() || !host.isEmpty() || username != null)
                    && !(omitHost && host.isEmpty() && username == null)) {
                if (!host.isEmpty() || !path.isEmpty() || username != null) {
                    out.append("//");
                }
                if (username != null) {
                    out.append(userinfo()).append('@');
                }
                out.append(escape(host, Mode.HOST));
            }
            String p = escapedPath();
            if (!p.isEmpty() && p.charAt(0) != '/' && !host.isEmpty()) {
                out.append('/');
            }
            if (out.length() == 0) {
                // a first segment with a colon would read as a scheme (RFC 3986 §4.2)
                int slash = p.indexOf('/');
                if ((slash < 0 ? p : p.substring(0, slash)).contains(":")) {
                    out.append("./");
                }
            }
            out.append(p);
        }
        if (forceQuery || !rawQuery.isEmpty()) {
            out.append('?').append(rawQuery);
        }
        if (!fragment.isEmpty()) {
            out.append('#').append(escapedFragment());
        }
        return out.toString();
    }

    /** Go's netip.ParseAddr, as far as a bracketed host needs it: an IPv6 address, with an optional zone. */
    static final class IpLiteral {
        private IpLiteral() {
        }

        /** null when {@code s} is an IPv6 address; else why not, as Go says it. */
        static String check(String s) {
            int first = firstOf(s.indexOf('.'), s.indexOf(':'), s.indexOf('%'));
            String why;
            if (first < 0) {
                why = "unable to parse IP";
            } else if (s.charAt(first) == '%') {
                why = "missing IPv6 address";
            } else if (s.charAt(first) == '.') {
                why = ipv4(s);
                if (why == null) {
                    return "invalid IP-literal"; // an IPv4 address, which brackets may not hold
                }
            } else {
                why = ipv6(s);
            }
            return why == null ? null : "invalid host: ParseAddr(" + GoFormat.quote(s) + "): " + why;
        }

        private static int firstOf(int... at) {
            int min = -1;
            for (int a : at) {
                if (a >= 0 && (min < 0 || a < min)) {
                    min = a;
                }
            }
            return min;
        }

        /** Four decimal fields 0-255 without leading zeros; null when valid. */
        private static String ipv4(String s) {
            String[] fields = s.split("\\.", -1);
            if (fields.length > 4) {
                return "IPv4 address too long";
            }
            for (String f : fields) {
                if (f.isEmpty()) {
                    return "IPv4 field must have at least one digit";
                }
                if (!f.chars().allMatch(c -> c >= '0' && c <= '9')) {
                    return "unexpected character";
                }
                if (f.length() > 1 && f.charAt(0) == '0') {
                    return "IPv4 field has octet with leading zero";
                }
                if (f.length() > 3 || Integer.parseInt(f) > 255) {
                    return "IPv4 field has value >255";
                }
            }
            return fields.length < 4 ? "IPv4 address too short" : null;
        }

        /** Eight 16-bit hex fields, "::" once for one or more zero fields, an IPv4 address as the last two. */
        private static String ipv6(String s) {
            int pct = s.indexOf('%');
            if (pct >= 0) {
                if (pct == s.length() - 1) {
                    return "zone must be a non-empty string";
                }
                s = s.substring(0, pct);
            }
            int fields = 0;
            boolean ellipsis = false;
            int i = 0;
            if (s.startsWith("::")) {
                ellipsis = true;
                i = 2;
                if (s.length() == 2) {
                    return null;
                }
            }
            while (i < s.length()) {
                int end = i;
                while (end < s.length() && hex(s.charAt(end)) >= 0) {
                    end++;
                }
                if (end < s.length() && s.charAt(end) == '.') { // an IPv4 address: the last two fields
                    if (!ellipsis && fields != 6) {
                        return "embedded IPv4 address must replace the final 2 fields of the address";
                    }
                    if (fields > 6) {
                        return "too many hex fields to fit an embedded IPv4 at the end of the address";
                    }
                    String why = ipv4(s.substring(i));
                    if (why != null) {
                        return why;
                    }
                    fields += 2;
                    break;
                }
                if (end == i) {
                    return "each colon-separated field must have at least one digit";
                }
                if (end - i > 4) {
                    return "each group must have 4 or less digits";
                }
                fields++;
                i = end;
                if (i == s.length()) {
                    break;
                }
                if (s.charAt(i) != ':') {
                    return "unexpected character, want colon";
                }
                if (i + 1 == s.length()) {
                    return "colon must be followed by more characters";
                }
                i++;
                if (s.charAt(i) == ':') {
                    if (ellipsis) {
                        return "multiple :: in address";
                    }
                    ellipsis = true;
                    i++;
                    if (i == s.length()) {
                        break;
                    }
                }
                if (fields > 8) {
                    return "trailing garbage after address";
                }
            }
            if (fields > 8) {
                return "trailing garbage after address";
            }
            if (fields == 8 && ellipsis) {
                return "the :: must expand to at least one field of zeros";
            }
            return fields < 8 && !ellipsis ? "address string too short" : null;
        }
    }
}
