package io.nodelabeller.template;

import java.util.function.IntPredicate;

/**
 * Sprig's {@code snakecase}, {@code kebabcase} and {@code camelcase} ({@link #pascal}): huandu/xstrings' ToSnakeCase and
 * ToKebabCase (Sprig v3.3.0 uses
 * xstrings v1.5.0; the two functions' documented behaviour, examples and word rules are those of v1.4.0's
 * convert.go, and {@code SprigCaseTest} holds its test table). The text is cut into words — a run of connectors
 * ({@code - _} and Unicode spaces), of punctuation, of digits, an upper-case word ({@code HTTP} in {@code HTTPServer},
 * {@code Server}), a lower-case word, or a run of anything else (CJK ideographs among them) — and written lower-case
 * with one connector between words, every connector of the text written as the connector, punctuation kept as it
 * is; digits stay with the word before them unless lower-case letters follow them ({@code Bld4Floor} →
 * {@code bld4_floor}, {@code http2xx} → {@code http_2xx}). U+FFFD, which Go's decoder cannot tell from invalid
 * UTF-8, belongs to the word after it (or the last word).
 */
final class CaseWords {

    private enum Kind { INVALID, NUMBER, UPPER, ALPHABET, CONNECTOR, PUNCT, OTHER }

    private static final int REPLACEMENT = 0xFFFD;

    private final int[] cp;
    private final int connector;
    private final StringBuilder out = new StringBuilder();
    private int pos;
    private Kind kind;
    private int start;
    private int end;

    private CaseWords(String text, int connector) {
        this.cp = text.codePoints().toArray();
        this.connector = connector;
    }

    static String snake(String text) {
        return new CaseWords(text, '_').lower();
    }

    static String kebab(String text) {
        return new CaseWords(text, '-').lower();
    }

    /**
     * Sprig's {@code camelcase}: xstrings v1.5.0's ToPascalCase (convert.go's toCamelCase with isBig). Leading
     * connectors are kept, a letter after a connector is upper-cased and the connector dropped (a run of connectors
     * keeps all but its last), the first letter is upper-cased, and in a word that starts with a capital the capitals
     * that follow it are lower-cased up to its first lower-case letter ({@code GOLANG_IS_GREAT} → {@code GolangIsGreat},
     * and so {@code HTTPServer} → {@code Httpserver}). A text of connectors only has its last connector written twice,
     * as xstrings does.
     */
    static String pascal(String text) {
        int[] cp = text.codePoints().toArray();
        if (cp.length == 0) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        boolean firstUpper = false;
        int i = 0;
        int r0 = 0;
        while (i < cp.length) {
            r0 = cp[i++];
            if (!isConnector(r0)) {
                firstUpper = isUpper(r0);
                r0 = Character.toUpperCase(r0);
                break;
            }
            out.appendCodePoint(r0);
        }
        if (i == cp.length) {
            return out.appendCodePoint(r0).toString();
        }
        while (i < cp.length) {
            int r1 = r0;
            r0 = cp[i++];
            if (isConnector(r0) && isConnector(r1)) {
                out.appendCodePoint(r1);
                continue;
            }
            if (isConnector(r1)) {
                firstUpper = isUpper(r0);
                r0 = Character.toUpperCase(r0);
            } else {
                if (firstUpper) {
                    if (isUpper(r0)) {
                        r0 = Character.toLowerCase(r0);
                    } else {
                        firstUpper = false;
                    }
                }
                out.appendCodePoint(r1);
            }
        }
        return out.appendCodePoint(r0).toString();
    }

    private String lower() {
        if (cp.length == 0) {
            return "";
        }
        next();
        while (pos < cp.length) {
            if (kind != Kind.CONNECTOR) {
                write(kind, start, end);
            }
            Kind prev = kind;
            int prevStart = start;
            int prevEnd = end;
            next();
            switch (prev) {
                case NUMBER -> {
                    while (kind == Kind.ALPHABET || kind == Kind.NUMBER) {
                        write(kind, start, end);
                        next();
                    }
                    if (kind != Kind.INVALID && kind != Kind.PUNCT && kind != Kind.CONNECTOR) {
                        out.appendCodePoint(connector);
                    }
                }
                case CONNECTOR -> write(prev, prevStart, prevEnd);
                case PUNCT -> {
                }
                default -> afterWord();
            }
        }
        write(kind, start, end);
        return out.toString();
    }

    /** After a word that is not digits, connectors or punctuation: the connector, or digits that belong to it. */
    private void afterWord() {
        if (kind != Kind.NUMBER) {
            if (kind != Kind.CONNECTOR && kind != Kind.PUNCT) {
                out.appendCodePoint(connector);
            }
            return;
        }
        if (pos >= cp.length) {
            return; // the digits end the text: written after the loop, with the word
        }
        int digitsStart = start;
        int digitsEnd = end;
        next();
        if (kind != Kind.ALPHABET) {
            write(Kind.NUMBER, digitsStart, digitsEnd); // digits stay with the word before them
            if (kind != Kind.CONNECTOR && kind != Kind.PUNCT) {
                out.appendCodePoint(connector);
            }
            return;
        }
        // lower-case letters after the digits: they start a word of their own ("HTTP2xx" → "http_2xx")
        out.appendCodePoint(connector);
        write(Kind.NUMBER, digitsStart, digitsEnd);
        while (kind == Kind.ALPHABET || kind == Kind.NUMBER) {
            write(kind, start, end);
            next();
        }
        if (kind != Kind.INVALID && kind != Kind.CONNECTOR && kind != Kind.PUNCT) {
            out.appendCodePoint(connector);
        }
    }

    /** An upper-case word or connectors lower-cased (connectors as the connector); any other word as it is. */
    private void write(Kind k, int from, int to) {
        for (int i = from; i < to; i++) {
            int c = cp[i];
            if (k == Kind.CONNECTOR && isConnector(c)) {
                out.appendCodePoint(connector);
            } else if ((k == Kind.UPPER || k == Kind.CONNECTOR) && isUpper(c)) {
                out.appendCodePoint(Character.toLowerCase(c));
            } else {
                out.appendCodePoint(c);
            }
        }
    }

    /** The index of the first code point at or after {@code i} that is not U+FFFD, or -1. */
    private int valid(int i) {
        while (i < cp.length && cp[i] == REPLACEMENT) {
            i++;
        }
        return i < cp.length ? i : -1;
    }

    /**
     * Extends a word from {@code to} while the next valid code point passes {@code more}; trailing U+FFFD only (no
     * valid code point left) is judged as the last one seen, so it joins the word.
     */
    private int extend(int to, int last, IntPredicate more) {
        while (to < cp.length) {
            int k = valid(to);
            int c = k < 0 ? last : cp[k];
            if (!more.test(c)) {
                break;
            }
            to = k < 0 ? cp.length : k + 1;
            last = c;
        }
        return to;
    }

    /** The next word: its kind and [start, end); pos moves past it. */
    private void next() {
        start = pos;
        int first = valid(pos);
        if (first < 0) {
            kind = Kind.INVALID;
            end = pos = cp.length;
            return;
        }
        int r = cp[first];
        end = first + 1;
        if (isConnector(r)) {
            kind = Kind.CONNECTOR;
            end = extend(end, r, CaseWords::isConnector);
        } else if (isPunct(r)) {
            kind = Kind.PUNCT;
            end = extend(end, r, CaseWords::isPunct);
        } else if (isUpper(r)) {
            kind = Kind.UPPER;
            upperWord(r);
        } else if (isAlphabet(r)) {
            kind = Kind.ALPHABET;
            end = extend(end, r, c -> isAlphabet(c) && !isUpper(c));
        } else if (isNumber(r)) {
            kind = Kind.NUMBER;
            end = extend(end, r, CaseWords::isNumber);
        } else {
            kind = Kind.OTHER;
            end = extend(end, r, c -> !isConnector(c) && !isAlphabet(c) && !isNumber(c) && !isPunct(c));
        }
        pos = end;
    }

    /**
     * An upper-case word: capitals then lower-case letters ({@code Server}), or a run of capitals that gives its last
     * one to the next word when lower-case letters follow ({@code HTTPServer} → {@code HTTP}, {@code Server}).
     */
    private void upperWord(int first) {
        if (end >= cp.length) {
            return;
        }
        int k = valid(end);
        int c = k < 0 ? first : cp[k];
        if (isUpper(c)) {
            int lastChunk = end;
            end = k < 0 ? cp.length : k + 1;
            while (end < cp.length) {
                int j = valid(end);
                int d = j < 0 ? c : cp[j];
                if (!isUpper(d)) {
                    if (isAlphabet(d)) {
                        end = lastChunk; // the last capital starts the next word
                    }
                    return;
                }
                lastChunk = end;
                end = j < 0 ? cp.length : j + 1;
                c = d;
            }
        } else if (isAlphabet(c)) {
            end = extend(k + 1, c, d -> isAlphabet(d) && !isUpper(d));
        }
    }

    /** Go's unicode.IsSpace, '-' and '_'. */
    private static boolean isConnector(int c) {
        return c == '-' || c == '_' || isSpace(c);
    }

    /** Go's unicode.IsSpace: the Latin-1 spaces and the White_Space property. */
    private static boolean isSpace(int c) {
        return switch (c) {
            case '\t', '\n', 0x0B, '\f', '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000 -> true;
            default -> c >= 0x2000 && c <= 0x200A;
        };
    }

    /** Go's unicode.IsPunct: general category P. */
    private static boolean isPunct(int c) {
        return switch (Character.getType(c)) {
            case Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION, Character.START_PUNCTUATION,
                 Character.END_PUNCTUATION, Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION,
                 Character.OTHER_PUNCTUATION -> true;
            default -> false;
        };
    }

    /** Go's unicode.IsUpper: general category Lu (Java's isUpperCase also takes Other_Uppercase symbols). */
    private static boolean isUpper(int c) {
        return Character.getType(c) == Character.UPPERCASE_LETTER;
    }

    /** Go's unicode.IsNumber: general category N. */
    private static boolean isNumber(int c) {
        int t = Character.getType(c);
        return t == Character.DECIMAL_DIGIT_NUMBER || t == Character.LETTER_NUMBER || t == Character.OTHER_NUMBER;
    }

    /** xstrings' isAlphabet: a letter that is not a CJK ideograph (U+3400–U+4D85, U+4E00–U+9FCC, U+20000–U+2B81D). */
    private static boolean isAlphabet(int c) {
        if (!Character.isLetter(c)) {
            return false;
        }
        return !((c >= 0x4E00 && c <= 0x9FCC) || (c >= 0x3400 && c <= 0x4D85) || (c >= 0x20000 && c <= 0x2B81D));
    }
}
