package io.nodelabeller.template;

/**
 * Go's {@code time.Duration} (nanoseconds in an int64) as text: {@link #format} is Duration.String ({@code 1h2m3.5s},
 * {@code 1.5µs}, {@code 0s}) and {@link #parse} is time.ParseDuration ({@code 300ms}, {@code -1.5h}, {@code 2h45m}),
 * with Go's error messages (time/time.go, time/format.go).
 */
final class GoDuration {

    static final long SECOND = 1_000_000_000L;

    private GoDuration() {
    }

    /** Duration.String. */
    static String format(long d) {
        if (d == 0) {
            return "0s";
        }
        boolean negative = d < 0;
        // the magnitude as an unsigned number: Long.MIN_VALUE stays itself and is read unsigned
        long u = negative ? -d : d;
        StringBuilder b = new StringBuilder();
        if (Long.compareUnsigned(u, SECOND) < 0) {
            String unit;
            int precision;
            if (u < 1000) {
                unit = "ns";
                precision = 0;
            } else if (u < 1_000_000) {
                unit = "µs";
                precision = 3;
            } else {
                unit = "ms";
                precision = 6;
            }
            b.append(Long.toUnsignedString(Long.divideUnsigned(u, pow10(precision))))
                    .append(fraction(Long.remainderUnsigned(u, pow10(precision)), precision)).append(unit);
        } else {
            long seconds = Long.divideUnsigned(u, SECOND);
            String frac = fraction(Long.remainderUnsigned(u, SECOND), 9);
            long minutes = seconds / 60;
            long hours = minutes / 60;
            if (hours > 0) {
                b.append(hours).append('h');
            }
            if (minutes > 0) {
                b.append(minutes % 60).append('m');
            }
            b.append(seconds % 60).append(frac).append('s');
        }
        return (negative ? "-" : "") + b;
    }

    private static long pow10(int n) {
        long p = 1;
        for (int i = 0; i < n; i++) {
            p *= 10;
        }
        return p;
    }

    /** fmtFrac: {@code .ddd} without trailing zeros, or nothing for a zero fraction. */
    private static String fraction(long v, int precision) {
        if (v == 0 || precision == 0) {
            return "";
        }
        String digits = String.format("%0" + precision + "d", v).replaceAll("0+$", "");
        return "." + digits;
    }

    /** time.ParseDuration. */
    static long parse(String s) throws TemplateException {
        String orig = s;
        boolean negative = false;
        if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
            negative = s.charAt(0) == '-';
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return 0;
        }
        TemplateException invalid = new TemplateException("time: invalid duration " + GoTime.quote(orig));
        if (s.isEmpty()) {
            throw invalid;
        }
        // the sum as an unsigned number up to 1<<63
        long d = 0;
        while (!s.isEmpty()) {
            char c = s.charAt(0);
            if (!(c == '.' || (c >= '0' && c <= '9'))) {
                throw invalid;
            }
            int i = 0;
            long v = 0;
            while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                if (Long.compareUnsigned(v, Long.divideUnsigned(Long.MIN_VALUE, 10)) > 0) {
                    throw invalid;
                }
                v = v * 10 + s.charAt(i) - '0';
                if (Long.compareUnsigned(v, Long.MIN_VALUE) > 0) {
                    throw invalid;
                }
                i++;
            }
            boolean pre = i > 0;
            s = s.substring(i);
            long f = 0;
            double scale = 1;
            boolean post = false;
            if (!s.isEmpty() && s.charAt(0) == '.') {
                s = s.substring(1);
                int j = 0;
                boolean overflow = false;
                while (j < s.length() && s.charAt(j) >= '0' && s.charAt(j) <= '9') {
                    if (!overflow) {
                        if (f > (Long.MAX_VALUE) / 10) {
                            overflow = true;
                        } else {
                            f = f * 10 + s.charAt(j) - '0';
                            scale *= 10;
                        }
                    }
                    j++;
                }
                post = j > 0;
                s = s.substring(j);
            }
            if (!pre && !post) {
                throw invalid;
            }
            int u = 0;
            while (u < s.length() && s.charAt(u) != '.' && !(s.charAt(u) >= '0' && s.charAt(u) <= '9')) {
                u++;
            }
            if (u == 0) {
                throw new TemplateException("time: missing unit in duration " + GoTime.quote(orig));
            }
            String unitName = s.substring(0, u);
            s = s.substring(u);
            long unit = switch (unitName) {
                case "ns" -> 1;
                case "us", "µs", "μs" -> 1000;
                case "ms" -> 1_000_000;
                case "s" -> SECOND;
                case "m" -> 60 * SECOND;
                case "h" -> 3600 * SECOND;
                default -> throw new TemplateException("time: unknown unit " + GoTime.quote(unitName) + " in duration " + GoTime.quote(orig));
            };
            if (Long.compareUnsigned(v, Long.divideUnsigned(Long.MIN_VALUE, unit)) > 0) {
                throw invalid;
            }
            v *= unit;
            if (f > 0) {
                v += (long) (f * (unit / scale));
                if (Long.compareUnsigned(v, Long.MIN_VALUE) > 0) {
                    throw invalid;
                }
            }
            d += v;
            if (Long.compareUnsigned(d, Long.MIN_VALUE) > 0) {
                throw invalid;
            }
        }
        if (negative) {
            return -d;
        }
        if (d == Long.MIN_VALUE) {
            throw invalid;
        }
        return d;
    }

    /** Duration.Round. */
    static long round(long d, long m) {
        if (m <= 0) {
            return d;
        }
        long r = d % m;
        if (d < 0) {
            r = -r;
            if (lessThanHalf(r, m)) {
                return d + r;
            }
            long d1 = d - m + r;
            return d1 < d ? d1 : Long.MIN_VALUE;
        }
        if (lessThanHalf(r, m)) {
            return d - r;
        }
        long d1 = d + m - r;
        return d1 > d ? d1 : Long.MAX_VALUE;
    }

    private static boolean lessThanHalf(long x, long y) {
        return Long.compareUnsigned(x + x, y) < 0;
    }
}
