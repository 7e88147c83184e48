package io.nodelabeller.template;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Sprig v3.3.0's string, number, encoding, path, type, regular-expression, JSON and random functions (strings.go,
 * numeric.go, crypto.go's digests, reflect.go, regex.go, defaults.go, and goutils / xstrings as Sprig calls them), with
 * Sprig's results. The functions that make keys, certificates or ciphertext ({@link #REFUSED}) fail with a message
 * naming the function. Arguments Go declares {@code int} must be integers ({@link #goInt}), as text/template checks.
 */
final class SprigText {

    /** Sprig's key, certificate, password-hash and cipher functions: not offered in label templates. */
    static final List<String> REFUSED = List.of("bcrypt", "htpasswd", "genPrivateKey", "derivePassword", "buildCustomCert",
            "genCA", "genCAWithKey", "genSelfSignedCert", "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey",
            "encryptAES", "decryptAES");

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ObjectMapper JSON = new ObjectMapper();

    private SprigText() {
    }

    static void register(Map<String, Functions.Fn> f) {
        f.put("hello", a -> {
            Functions.arity("hello", a, 0);
            return "Hello!";
        });
        f.put("trimall", f.get("trimAll"));
        f.put("title", a -> title(string("title", Functions.arity("title", a, 1), 0)));
        f.put("untitle", a -> {
            // goutils.Uncapitalize: the first letter of every space-separated word lower-cased
            StringBuilder out = new StringBuilder();
            boolean next = true;
            for (int cp : string("untitle", Functions.arity("untitle", a, 1), 0).codePoints().toArray()) {
                if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
                    next = true;
                    out.appendCodePoint(cp);
                } else {
                    out.appendCodePoint(next ? Character.toLowerCase(cp) : cp);
                    next = false;
                }
            }
            return out.toString();
        });
        f.put("wrap", a -> wrap(string("wrap", Functions.arity("wrap", a, 2), 1), goInt("wrap", a, 0), "\n", false));
        f.put("wrapWith", a -> wrap(string("wrapWith", Functions.arity("wrapWith", a, 3), 2), goInt("wrapWith", a, 0),
                string("wrapWith", a, 1), true));
        f.put("b32dec", a -> {
            String s = string("b32dec", Functions.arity("b32dec", a, 1), 0);
            String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
            if (s.length() % 8 != 0) {
                return "illegal base32 data at input byte " + (s.length() - s.length() % 8);
            }
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            int buffer = 0;
            int bits = 0;
            int pad = s.indexOf('=');
            String body = pad < 0 ? s : s.substring(0, pad);
            for (int i = 0; i < body.length(); i++) {
                int v = alphabet.indexOf(body.charAt(i));
                if (v < 0) {
                    return "illegal base32 data at input byte " + i;
                }
                buffer = (buffer << 5) | v;
                bits += 5;
                if (bits >= 8) {
                    out.write((buffer >> (bits - 8)) & 0xff);
                    bits -= 8;
                }
            }
            if (pad >= 0 && !s.substring(pad).chars().allMatch(c -> c == '=')) {
                return "illegal base32 data at input byte " + pad;
            }
            return out.toString(StandardCharsets.UTF_8);
        });
        f.put("swapcase", a -> swapCase(string("swapcase", Functions.arity("swapcase", a, 1), 0)));
        f.put("snakecase", a -> CaseWords.snake(string("snakecase", Functions.arity("snakecase", a, 1), 0)));
        f.put("camelcase", a -> CaseWords.pascal(string("camelcase", Functions.arity("camelcase", a, 1), 0)));
        f.put("kebabcase", a -> CaseWords.kebab(string("kebabcase", Functions.arity("kebabcase", a, 1), 0)));
        f.put("initials", a -> {
            StringBuilder out = new StringBuilder();
            boolean next = true;
            for (int cp : string("initials", Functions.arity("initials", a, 1), 0).codePoints().toArray()) {
                if (Character.isWhitespace(cp)) {
                    next = true;
                } else if (next) {
                    out.appendCodePoint(cp);
                    next = false;
                }
            }
            return out.toString();
        });
        f.put("abbrev", a -> {
            long width = goInt("abbrev", Functions.arity("abbrev", a, 2), 0);
            String s = string("abbrev", a, 1);
            return width < 4 || s.length() <= width ? s : s.substring(0, (int) width - 3) + "...";
        });
        f.put("abbrevboth", a -> {
            long left = goInt("abbrevboth", Functions.arity("abbrevboth", a, 3), 0);
            long right = goInt("abbrevboth", a, 1);
            String s = string("abbrevboth", a, 2);
            if (right < 4 || left > 0 && right < 7) {
                return s;
            }
            return abbreviateFull(s, (int) left, (int) right);
        });
        f.put("indent", a -> indent(goInt("indent", Functions.arity("indent", a, 2), 0), string("indent", a, 1)));
        f.put("nindent", a -> "\n" + indent(goInt("nindent", Functions.arity("nindent", a, 2), 0), string("nindent", a, 1)));
        f.put("plural", a -> goInt("plural", Functions.arity("plural", a, 3), 2) == 1 ? string("plural", a, 0)
                : string("plural", a, 1));
        f.put("split", a -> parts(string("split", Functions.arity("split", a, 2), 1).split(
                java.util.regex.Pattern.quote(string("split", a, 0)), -1)));
        f.put("splitn", a -> {
            long n = goInt("splitn", Functions.arity("splitn", a, 3), 1);
            String s = string("splitn", a, 2);
            String sep = string("splitn", a, 0);
            if (n == 0) {
                return new SprigCollections.Dict();
            }
            return parts(n < 0 ? s.split(java.util.regex.Pattern.quote(sep), -1) : splitN(s, sep, (int) n));
        });
        f.put("toStrings", a -> {
            Object v = Functions.arity("toStrings", a, 1).get(0);
            List<Object> out = new ArrayList<>();
            if (v instanceof List<?> l) {
                l.stream().filter(java.util.Objects::nonNull).forEach(o -> out.add(Sprig.toString(o)));
            } else if (v != null) {
                out.add(Sprig.toString(v));
            }
            return out;
        });
        f.put("b64enc", a -> Base64.getEncoder().encodeToString(bytes(string("b64enc", Functions.arity("b64enc", a, 1), 0))));
        f.put("b64dec", a -> {
            String s = string("b64dec", Functions.arity("b64dec", a, 1), 0);
            try {
                return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return "illegal base64 data at input byte " + badBase64(s);
            }
        });
        f.put("b32enc", a -> base32(bytes(string("b32enc", Functions.arity("b32enc", a, 1), 0))));
        f.put("sha1sum", a -> digest("SHA-1", string("sha1sum", Functions.arity("sha1sum", a, 1), 0)));
        f.put("sha256sum", a -> digest("SHA-256", string("sha256sum", Functions.arity("sha256sum", a, 1), 0)));
        f.put("sha512sum", a -> digest("SHA-512", string("sha512sum", Functions.arity("sha512sum", a, 1), 0)));
        f.put("adler32sum", a -> {
            java.util.zip.Adler32 c = new java.util.zip.Adler32();
            c.update(bytes(string("adler32sum", Functions.arity("adler32sum", a, 1), 0)));
            return Long.toString(c.getValue());
        });

        f.put("float64", a -> toFloat64(Functions.arity("float64", a, 1).get(0)));
        f.put("toDecimal", a -> {
            try {
                return new Int64(Long.parseLong(GoFormat.value(Functions.arity("toDecimal", a, 1).get(0)), 8));
            } catch (NumberFormatException e) {
                return new Int64(0);
            }
        });
        f.put("biggest", f.get("max"));
        f.put("maxf", a -> fold("maxf", a, Math::max));
        f.put("minf", a -> fold("minf", a, Math::min));
        f.put("floor", a -> Math.floor(toFloat64(Functions.arity("floor", a, 1).get(0))));
        f.put("ceil", a -> Math.ceil(toFloat64(Functions.arity("ceil", a, 1).get(0))));
        f.put("round", a -> {
            if (a.size() < 2 || a.size() > 3) {
                throw new TemplateException("wrong number of args for round: want 2 or 3 got " + a.size());
            }
            double roundOn = a.size() == 3 ? toFloat64(a.get(2)) : .5;
            double pow = Math.pow(10, goInt("round", a, 1));
            double digit = pow * toFloat64(a.get(0));
            double frac = digit - (digit < 0 ? Math.ceil(digit) : Math.floor(digit)); // math.Modf's fraction
            return (frac >= roundOn ? Math.ceil(digit) : Math.floor(digit)) / pow;
        });
        f.put("add1f", a -> decimal(List.of(Functions.arity("add1f", a, 1).get(0), 1L), '+'));
        f.put("addf", a -> {
            List<Object> all = new ArrayList<>();
            all.add(0.0);
            all.addAll(a);
            return decimal(all, '+');
        });
        f.put("subf", a -> decimal(atLeast("subf", a, 1), '-'));
        f.put("mulf", a -> decimal(atLeast("mulf", a, 1), '*'));
        f.put("divf", a -> decimal(atLeast("divf", a, 1), '/'));
        f.put("randInt", a -> {
            long min = goInt("randInt", Functions.arity("randInt", a, 2), 0);
            long max = goInt("randInt", a, 1);
            if (max - min <= 0) {
                throw new TemplateException("error calling randInt: invalid argument to Intn");
            }
            return min + (long) RANDOM.nextInt((int) Math.min(Integer.MAX_VALUE, max - min));
        });

        f.put("all", a -> a.stream().noneMatch(Sprig::empty));
        f.put("any", a -> a.stream().anyMatch(o -> !Sprig.empty(o)));
        f.put("fail", a -> {
            throw new TemplateException("error calling fail: " + string("fail", Functions.arity("fail", a, 1), 0));
        });
        f.put("deepEqual", a -> java.util.Objects.equals(Functions.arity("deepEqual", a, 2).get(0), a.get(1)));
        f.put("typeOf", a -> GoFormat.typeName(Functions.arity("typeOf", a, 1).get(0)));
        f.put("typeIs", a -> string("typeIs", Functions.arity("typeIs", a, 2), 0).equals(GoFormat.typeName(a.get(1))));
        f.put("typeIsLike", a -> {
            String t = GoFormat.typeName(Functions.arity("typeIsLike", a, 2).get(1));
            String want = string("typeIsLike", a, 0);
            return want.equals(t) || ("*" + want).equals(t);
        });
        f.put("kindOf", a -> kind(Functions.arity("kindOf", a, 1).get(0)));
        f.put("kindIs", a -> string("kindIs", Functions.arity("kindIs", a, 2), 0).equals(kind(a.get(1))));

        for (String p : List.of("base", "osBase")) {
            f.put(p, a -> base(string(p, Functions.arity(p, a, 1), 0)));
        }
        for (String p : List.of("dir", "osDir")) {
            f.put(p, a -> dir(string(p, Functions.arity(p, a, 1), 0)));
        }
        for (String p : List.of("clean", "osClean")) {
            f.put(p, a -> clean(string(p, Functions.arity(p, a, 1), 0)));
        }
        for (String p : List.of("ext", "osExt")) {
            f.put(p, a -> {
                String s = string(p, Functions.arity(p, a, 1), 0);
                for (int i = s.length() - 1; i >= 0 && s.charAt(i) != '/'; i--) {
                    if (s.charAt(i) == '.') {
                        return s.substring(i);
                    }
                }
                return "";
            });
        }
        for (String p : List.of("isAbs", "osIsAbs")) {
            f.put(p, a -> string(p, Functions.arity(p, a, 1), 0).startsWith("/"));
        }

        f.put("mustRegexMatch", a -> regex("mustRegexMatch", Functions.arity("mustRegexMatch", a, 2), 0)
                .matcher(string("mustRegexMatch", a, 1)).find());
        f.put("mustRegexFind", a -> {
            Matcher m = regex("mustRegexFind", Functions.arity("mustRegexFind", a, 2), 0).matcher(string("mustRegexFind", a, 1));
            return m.find() ? m.group() : "";
        });
        for (String name : List.of("regexFindAll", "mustRegexFindAll")) {
            f.put(name, a -> {
                Pattern p = regex(name, Functions.arity(name, a, 3), 0);
                String s = string(name, a, 1);
                List<Object> out = new ArrayList<>();
                for (int[] m : findAll(p, s, goInt(name, a, 2))) {
                    out.add(s.substring(m[0], m[1]));
                }
                return out; // Go's nil []string prints as [] too
            });
        }
        for (String name : List.of("regexSplit", "mustRegexSplit")) {
            f.put(name, a -> regexSplit(regex(name, Functions.arity(name, a, 3), 0), string(name, a, 1), goInt(name, a, 2)));
        }
        f.put("mustRegexReplaceAll", f.get("regexReplaceAll"));
        f.put("mustRegexReplaceAllLiteral", f.get("regexReplaceAllLiteral"));
        f.put("regexQuoteMeta", a -> {
            StringBuilder out = new StringBuilder();
            for (char c : string("regexQuoteMeta", Functions.arity("regexQuoteMeta", a, 1), 0).toCharArray()) {
                if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
                    out.append('\\');
                }
                out.append(c);
            }
            return out.toString();
        });

        for (String name : List.of("toJson", "mustToJson", "toRawJson", "mustToRawJson", "toPrettyJson", "mustToPrettyJson")) {
            boolean pretty = name.contains("Pretty");
            boolean html = !name.contains("Raw");
            f.put(name, a -> json(Functions.arity(name, a, 1).get(0), pretty, html));
        }
        for (String name : List.of("fromJson", "mustFromJson")) {
            f.put(name, a -> {
                String s = string(name, Functions.arity(name, a, 1), 0);
                try {
                    return fromJson(JSON.readTree(s));
                } catch (JsonProcessingException e) {
                    if (name.startsWith("must")) {
                        throw new TemplateException("error calling " + name + ": " + e.getOriginalMessage());
                    }
                    return null;
                }
            });
        }

        f.put("randAlphaNum", a -> random("randAlphaNum", a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"));
        f.put("randAlpha", a -> random("randAlpha", a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"));
        f.put("randNumeric", a -> random("randNumeric", a, "0123456789"));
        f.put("randAscii", a -> {
            StringBuilder ascii = new StringBuilder();
            for (char c = 32; c < 127; c++) {
                ascii.append(c);
            }
            return random("randAscii", a, ascii.toString());
        });
        f.put("randBytes", a -> {
            long count = goInt("randBytes", Functions.arity("randBytes", a, 1), 0);
            Functions.within("randBytes", count);
            if (count < 0) {
                throw new TemplateException("runtime error: makeslice: len out of range");
            }
            byte[] b = new byte[(int) count];
            RANDOM.nextBytes(b);
            return Base64.getEncoder().encodeToString(b);
        });
        f.put("uuidv4", a -> {
            Functions.arity("uuidv4", a, 0);
            return java.util.UUID.randomUUID().toString();
        });
        f.put("shuffle", a -> {
            List<Integer> cps = new ArrayList<>();
            string("shuffle", Functions.arity("shuffle", a, 1), 0).codePoints().forEach(cps::add);
            java.util.Collections.shuffle(cps, RANDOM);
            StringBuilder out = new StringBuilder();
            cps.forEach(out::appendCodePoint);
            return out.toString();
        });
        f.put("semver", a -> SemVer.parse(string("semver", Functions.arity("semver", a, 1), 0)));
        f.put("semverCompare", a -> SemVer.satisfies(string("semverCompare", Functions.arity("semverCompare", a, 2), 0),
                SemVer.parse(string("semverCompare", a, 1))));
        for (String name : REFUSED) {
            f.put(name, a -> {
                throw new TemplateException(name + " makes keys, certificates, password hashes or ciphertext: it is not"
                        + " offered in label templates (a label is public, and one that changes at every cycle flaps)");
            });
        }
    }

    /** Argument {@code i} as Go's {@code int} parameter: an integer, or text/template's type error. */
    static long goInt(String fn, List<Object> a, int i) throws TemplateException {
        return typed(fn, a, i, Long.class, "int");
    }

    /** Argument {@code i} as Go's {@code string} parameter. */
    static String string(String fn, List<Object> a, int i) throws TemplateException {
        return typed(fn, a, i, String.class, "string");
    }

    private static <T> T typed(String fn, List<Object> a, int i, Class<T> type, String goType) throws TemplateException {
        Object v = a.get(i);
        if (type.isInstance(v)) {
            return type.cast(v);
        }
        throw new TemplateException("wrong type for value; expected " + goType + "; got " + GoFormat.typeName(v)
                + " (argument " + (i + 1) + " of " + fn + ")");
    }

    /** Go's reflect kind of a template value: a scalar's kind is its type's name. */
    static String kind(Object v) {
        if (v == null) {
            return "invalid";
        }
        if (v instanceof Map) {
            return "map";
        }
        if (v instanceof List) {
            return "slice";
        }
        return v instanceof SemVer ? "ptr" : v instanceof GoTime ? "struct" : v instanceof GoNamedInt ? "int" : GoFormat.typeName(v);
    }

    /** Sprig's maxf/minf: math.Max/Min over the arguments as float64. */
    private static double fold(String fn, List<Object> a, java.util.function.DoubleBinaryOperator op) throws TemplateException {
        double m = toFloat64(atLeast(fn, a, 1).get(0));
        for (Object o : a.subList(1, a.size())) {
            m = op.applyAsDouble(m, toFloat64(o));
        }
        return m;
    }

    private static List<Object> atLeast(String fn, List<Object> a, int n) throws TemplateException {
        if (a.size() < n) {
            throw new TemplateException("wrong number of args for " + fn + ": want at least " + n + " got " + a.size());
        }
        return a;
    }

    /** spf13/cast's ToFloat64 as Sprig uses it: numbers, booleans, text Go's ParseFloat reads, else 0. */
    static double toFloat64(Object v) {
        Long integer = Int64.of(v);
        if (integer != null) {
            return integer;
        }
        if (v instanceof Double d) {
            return d;
        }
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (v instanceof String s) {
            try {
                return Double.parseDouble(s.trim().equals(s) && !s.endsWith("d") && !s.endsWith("f") ? s : "x");
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }

    /** shopspring/decimal arithmetic as Sprig's execDecimalOp does it, then back to float64. */
    private static double decimal(List<Object> a, char op) throws TemplateException {
        BigDecimal r = new BigDecimal(Double.toString(toFloat64(a.get(0))));
        for (Object o : a.subList(1, a.size())) {
            BigDecimal d = new BigDecimal(Double.toString(toFloat64(o)));
            r = switch (op) {
                case '+' -> r.add(d);
                case '-' -> r.subtract(d);
                case '*' -> r.multiply(d);
                default -> {
                    if (d.signum() == 0) {
                        throw new TemplateException("error calling divf: decimal division by 0");
                    }
                    yield r.divide(d, 16, java.math.RoundingMode.HALF_UP);
                }
            };
        }
        return r.doubleValue();
    }

    private static String title(String s) {
        // strings.Title: the first letter of each word (after a non-letter) upper-cased
        StringBuilder out = new StringBuilder();
        int prev = ' ';
        for (int cp : s.codePoints().toArray()) {
            // strings.Title's isSeparator: ASCII but letters, digits and '_'; beyond ASCII, only spaces
            boolean sep = prev < 0x80 ? !(Character.isLetterOrDigit(prev) || prev == '_') : Character.isWhitespace(prev);
            out.appendCodePoint(sep ? Character.toTitleCase(cp) : cp);
            prev = cp;
        }
        return out.toString();
    }

    private static String swapCase(String s) {
        StringBuilder out = new StringBuilder();
        for (int cp : s.codePoints().toArray()) {
            out.appendCodePoint(Character.isUpperCase(cp) ? Character.toLowerCase(cp)
                    : Character.isLowerCase(cp) ? Character.toUpperCase(cp) : cp);
        }
        return out.toString();
    }

    /** goutils.AbbreviateFull: "..." on the side(s) cut, the window starting near {@code offset}. */
    private static String abbreviateFull(String s, int offset, int maxWidth) {
        if (s.length() <= maxWidth) {
            return s;
        }
        if (offset > s.length()) {
            offset = s.length();
        }
        if (s.length() - offset < maxWidth - 3) {
            offset = s.length() - (maxWidth - 3);
        }
        if (offset <= 4) {
            return s.substring(0, maxWidth - 3) + "...";
        }
        if (offset + maxWidth - 3 < s.length()) {
            return "..." + abbreviateFull(s.substring(offset), 0, maxWidth - 3);
        }
        return "..." + s.substring(s.length() - (maxWidth - 3));
    }

    /** goutils.WrapCustom: break at the last space within the width; a longer word broken only with {@code longWords}. */
    private static String wrap(String str, long width, String newLine, boolean longWords) {
        if (str.isEmpty()) {
            return "";
        }
        String nl = newLine.isEmpty() ? "\n" : newLine;
        int w = (int) Math.max(1, Math.min(width, Integer.MAX_VALUE - 2));
        int length = str.length();
        int offset = 0;
        StringBuilder out = new StringBuilder();
        while (length - offset > w) {
            if (str.charAt(offset) == ' ') {
                offset++;
                continue;
            }
            int space = str.substring(offset, w + offset + 1).lastIndexOf(' ') + offset;
            if (space >= offset) {
                out.append(str, offset, space).append(nl);
                offset = space + 1;
            } else if (longWords) {
                out.append(str, offset, w + offset).append(nl);
                offset += w;
            } else {
                int index = str.indexOf(' ', w + offset);
                if (index == -1) {
                    out.append(str, offset, length);
                    offset = length;
                } else {
                    out.append(str, offset, index).append(nl);
                    offset = index + 1;
                }
            }
        }
        return out.append(str.substring(offset)).toString();
    }

    private static String indent(long spaces, String s) throws TemplateException {
        Functions.within("indent", Math.max(0, spaces) > Executor.MAX_OUTPUT ? spaces
                : Math.max(0, spaces) * (s.chars().filter(c -> c == '\n').count() + 1) + s.length());
        String pad = " ".repeat((int) Math.max(0, spaces));
        return pad + s.replace("\n", "\n" + pad);
    }

    private static SprigCollections.Dict parts(String[] parts) {
        SprigCollections.Dict d = new SprigCollections.Dict();
        for (int i = 0; i < parts.length; i++) {
            d.put("_" + i, parts[i]);
        }
        return d;
    }

    /** strings.SplitN with n > 0. */
    private static String[] splitN(String s, String sep, int n) {
        List<String> out = new ArrayList<>();
        int from = 0;
        while (out.size() < n - 1) {
            int i = sep.isEmpty() ? (from < s.length() ? from + 1 : -1) : s.indexOf(sep, from);
            if (i < 0 || (sep.isEmpty() && i > s.length())) {
                break;
            }
            out.add(s.substring(from, sep.isEmpty() ? i : i));
            from = sep.isEmpty() ? i : i + sep.length();
        }
        out.add(s.substring(from));
        return out.toArray(String[]::new);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static int badBase64(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128 || c == '+' || c == '/' || c == '=')) {
                return i;
            }
        }
        return s.length() - s.length() % 4 == s.length() ? Math.max(0, s.length() - 4) : s.length() - s.length() % 4;
    }

    private static String base32(byte[] b) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        StringBuilder out = new StringBuilder();
        int buffer = 0;
        int bits = 0;
        for (byte x : b) {
            buffer = (buffer << 8) | (x & 0xff);
            bits += 8;
            while (bits >= 5) {
                out.append(alphabet.charAt((buffer >> (bits - 5)) & 31));
                bits -= 5;
            }
        }
        if (bits > 0) {
            out.append(alphabet.charAt((buffer << (5 - bits)) & 31));
        }
        while (out.length() % 8 != 0) {
            out.append('=');
        }
        return out.toString();
    }

    private static String digest(String algorithm, String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes(s)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** path.Base. */
    private static String base(String p) {
        if (p.isEmpty()) {
            return ".";
        }
        String s = p;
        while (s.length() > 1 && s.endsWith("/")) {
            s = s.substring(0, s.length() - 1);
        }
        int i = s.lastIndexOf('/');
        String b = i >= 0 ? s.substring(i + 1) : s;
        return b.isEmpty() ? "/" : b;
    }

    /** path.Dir: Clean of everything up to the last slash. */
    private static String dir(String p) {
        int i = p.lastIndexOf('/');
        return clean(p.substring(0, i + 1));
    }

    /** path.Clean (Rob Pike's lexical rules). */
    static String clean(String p) {
        if (p.isEmpty()) {
            return ".";
        }
        boolean rooted = p.startsWith("/");
        List<String> out = new ArrayList<>();
        for (String part : p.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (!out.isEmpty() && !out.get(out.size() - 1).equals("..")) {
                    out.remove(out.size() - 1);
                } else if (!rooted) {
                    out.add("..");
                }
                continue;
            }
            out.add(part);
        }
        String joined = String.join("/", out);
        if (rooted) {
            return "/" + joined;
        }
        return joined.isEmpty() ? "." : joined;
    }

    private static Pattern regex(String fn, List<Object> a, int i) throws TemplateException {
        String p = string(fn, a, i);
        try {
            return Pattern.compile(p);
        } catch (PatternSyntaxException e) {
            throw new TemplateException("error calling " + fn + ": " + e.getMessage());
        }
    }

    /** regexp.Split: at most {@code n} parts (all when negative, none when 0). */
    private static List<Object> regexSplit(Pattern p, String s, long n) {
        List<Object> out = new ArrayList<>();
        if (n == 0) {
            return out; // Go's nil []string prints as [] too
        }
        if (!p.pattern().isEmpty() && s.isEmpty()) {
            out.add("");
            return out;
        }
        int beg = 0;
        int end = 0;
        for (int[] match : findAll(p, s, n)) {
            if (n > 0 && out.size() == n - 1) {
                break;
            }
            end = match[0];
            if (match[1] != 0) {
                out.add(s.substring(beg, end));
            }
            beg = match[1];
        }
        if (end != s.length()) {
            out.add(s.substring(beg));
        }
        return out;
    }

    /** regexp's FindAllStringIndex: an empty match right after the previous match is not one. */
    private static List<int[]> findAll(Pattern p, String s, long n) {
        List<int[]> out = new ArrayList<>();
        Matcher m = p.matcher(s);
        int from = 0;
        int lastEnd = -1;
        while ((n < 0 || out.size() < n) && from <= s.length() && m.find(from)) {
            if (!(m.start() == m.end() && m.start() == lastEnd)) {
                out.add(new int[] {m.start(), m.end()});
                lastEnd = m.end();
            }
            from = m.end() > m.start() ? m.end() : m.end() + (m.end() < s.length() ? Character.charCount(s.codePointAt(m.end())) : 1);
        }
        return out;
    }

    /** encoding/json: maps with sorted keys, &lt; &gt; &amp; escaped unless raw, floats as Go writes them. */
    private static String json(Object v, boolean pretty, boolean html) throws TemplateException {
        StringBuilder out = new StringBuilder();
        writeJson(v, out, pretty ? "" : null, html);
        return out.toString();
    }

    private static void writeJson(Object v, StringBuilder out, String indent, boolean html) {
        if (v == null) {
            out.append("null");
        } else if (v instanceof String s) {
            out.append('"');
            for (char c : s.toCharArray()) {
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default -> {
                        if (c < 0x20 || (html && (c == '<' || c == '>' || c == '&')) || c == '\u2028' || c == '\u2029') {
                            out.append(String.format("\\u%04x", (int) c));
                        } else {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
        } else if (v instanceof Double d) {
            out.append(jsonFloat(d));
        } else if (Int64.of(v) != null || v instanceof Boolean) {
            out.append(v instanceof Boolean ? v : Int64.of(v));
        } else if (v instanceof Map<?, ?> m) {
            java.util.TreeMap<String, Object> sorted = new java.util.TreeMap<>();
            m.forEach((k, x) -> sorted.put(String.valueOf(k), x));
            out.append('{');
            String inner = indent == null ? null : indent + "  ";
            boolean first = true;
            for (Map.Entry<String, Object> e : sorted.entrySet()) {
                out.append(first ? "" : ",");
                first = false;
                if (inner != null) {
                    out.append('\n').append(inner);
                }
                writeJson(e.getKey(), out, inner, html);
                out.append(inner == null ? ":" : ": ");
                writeJson(e.getValue(), out, inner, html);
            }
            if (inner != null && !sorted.isEmpty()) {
                out.append('\n').append(indent);
            }
            out.append('}');
        } else if (v instanceof List<?> l) {
            out.append('[');
            String inner = indent == null ? null : indent + "  ";
            for (int i = 0; i < l.size(); i++) {
                out.append(i == 0 ? "" : ",");
                if (inner != null) {
                    out.append('\n').append(inner);
                }
                writeJson(l.get(i), out, inner, html);
            }
            if (inner != null && !l.isEmpty()) {
                out.append('\n').append(indent);
            }
            out.append(']');
        } else if (v instanceof GoTime t) {
            writeJson(t.format(GoTime.RFC3339_NANO), out, indent, html); // Time.MarshalJSON
        } else {
            writeJson(v.toString(), out, indent, html);
        }
    }

    /** encoding/json's float64: shortest digits, fixed unless below 1e-6 or from 1e21, then e-7 rather than e-07. */
    static String jsonFloat(double f) {
        double abs = Math.abs(f);
        if (abs == 0 || (abs >= 1e-6 && abs < 1e21)) {
            String plain = new BigDecimal(Double.toString(f)).stripTrailingZeros().toPlainString();
            return f == 0 && 1 / f < 0 ? "-0" : plain;
        }
        String e = Double.toString(f).replace("E", "e"); // 1.0e21, 1.5e-7
        String mantissa = e.substring(0, e.indexOf('e')).replaceAll("\\.0$", "");
        String exp = e.substring(e.indexOf('e') + 1);
        return mantissa + "e" + (exp.startsWith("-") ? exp : "+" + exp);
    }

    /** encoding/json into interface {}: objects are map[string]interface {}, numbers float64. */
    private static Object fromJson(JsonNode n) {
        if (n.isObject()) {
            SprigCollections.Dict d = new SprigCollections.Dict();
            n.fields().forEachRemaining(e -> d.put(e.getKey(), fromJson(e.getValue())));
            return d;
        }
        if (n.isArray()) {
            List<Object> out = new ArrayList<>();
            n.forEach(x -> out.add(fromJson(x)));
            return out;
        }
        if (n.isNumber()) {
            return n.asDouble();
        }
        if (n.isBoolean()) {
            return n.asBoolean();
        }
        return n.isNull() ? null : n.asText();
    }

    private static String random(String fn, List<Object> a, String alphabet) throws TemplateException {
        long count = goInt(fn, Functions.arity(fn, a, 1), 0);
        Functions.within(fn, count);
        StringBuilder out = new StringBuilder();
        for (long i = 0; i < count; i++) {
            out.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return out.toString();
    }

    static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
