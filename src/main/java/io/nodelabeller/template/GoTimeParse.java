package io.nodelabeller.template;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** time.ParseInLocation as time/format.go does it, for Sprig's date parsing functions. */
final class GoTimeParse {

    private GoTimeParse() {
    }

    /**
     * time.ParseInLocation's parse: {@code value} read with {@code layout}; a time without zone information is in
     * {@code defaultZone}, an offset or abbreviation that {@code local} has at that time gives {@code local}, any other
     * a fixed zone.
     */
    static GoTime parse(String layout, String value, GoZone defaultZone, GoZone local) throws TemplateException {
        GoTimeCursor v = new GoTimeCursor(value);
        String l = layout;
        String rangeError = "";
        boolean am = false;
        boolean pm = false;
        int year = 0;
        int month = -1;
        int day = -1;
        int yday = -1;
        int hour = 0;
        int min = 0;
        int sec = 0;
        int nsec = 0;
        GoZone z = null;
        int zoneOffset = -1;
        String zoneName = "";
        while (true) {
            GoLayout.Chunk c = GoLayout.next(l);
            String stdText = l.substring(c.prefix().length(), l.length() - c.suffix().length());
            if (!v.skip(c.prefix())) {
                throw error(layout, value, c.prefix(), v.rest, "");
            }
            if (c.std() == null) {
                if (!v.rest.isEmpty()) {
                    throw error(layout, value, "", v.rest, ": extra text: " + GoTime.quote(v.rest));
                }
                break;
            }
            l = c.suffix();
            String hold = v.rest;
            try {
                switch (c.std()) {
                    case YEAR -> {
                        if (v.rest.length() < 2) {
                            throw new GoTimeCursor.Bad();
                        }
                        year = GoTimeCursor.atoi(v.take(2));
                        year += year >= 69 ? 1900 : 2000;
                    }
                    case LONG_YEAR -> {
                        if (v.rest.length() < 4 || !v.digitAt(0)) {
                            throw new GoTimeCursor.Bad();
                        }
                        year = GoTimeCursor.atoi(v.take(4));
                    }
                    case MONTH -> month = v.lookup(GoNamedInt.MONTHS, true) + 1;
                    case LONG_MONTH -> month = v.lookup(GoNamedInt.MONTHS, false) + 1;
                    case NUM_MONTH, ZERO_MONTH -> {
                        month = v.num(c.std() == GoLayout.Std.ZERO_MONTH);
                        if (month <= 0 || month > 12) {
                            rangeError = "month";
                        }
                    }
                    case WEEKDAY -> v.lookup(GoNamedInt.DAYS, true);
                    case LONG_WEEKDAY -> v.lookup(GoNamedInt.DAYS, false);
                    case DAY, UNDER_DAY, ZERO_DAY -> {
                        if (c.std() == GoLayout.Std.UNDER_DAY && v.rest.startsWith(" ")) {
                            v.take(1);
                        }
                        day = v.num(c.std() == GoLayout.Std.ZERO_DAY);
                    }
                    case UNDER_YEARDAY, ZERO_YEARDAY -> {
                        for (int i = 0; i < 2; i++) {
                            if (c.std() == GoLayout.Std.UNDER_YEARDAY && v.rest.startsWith(" ")) {
                                v.take(1);
                            }
                        }
                        yday = v.num3(c.std() == GoLayout.Std.ZERO_YEARDAY);
                    }
                    case HOUR -> {
                        hour = v.num(false);
                        if (hour >= 24) {
                            rangeError = "hour";
                        }
                    }
                    case HOUR12, ZERO_HOUR12 -> {
                        hour = v.num(c.std() == GoLayout.Std.ZERO_HOUR12);
                        if (hour > 12) {
                            rangeError = "hour";
                        }
                    }
                    case MINUTE, ZERO_MINUTE -> {
                        min = v.num(c.std() == GoLayout.Std.ZERO_MINUTE);
                        if (min >= 60) {
                            rangeError = "minute";
                        }
                    }
                    case SECOND, ZERO_SECOND -> {
                        sec = v.num(c.std() == GoLayout.Std.ZERO_SECOND);
                        if (sec >= 60) {
                            rangeError = "second";
                            break;
                        }
                        // a fraction the layout does not show is read all the same
                        if (v.rest.length() >= 2 && (v.rest.charAt(0) == '.' || v.rest.charAt(0) == ',') && v.digitAt(1)) {
                            GoLayout.Std following = GoLayout.next(l).std();
                            if (following != GoLayout.Std.FRAC_0 && following != GoLayout.Std.FRAC_9) {
                                int n = 2;
                                while (v.digitAt(n)) {
                                    n++;
                                }
                                nsec = GoTimeCursor.nanosOf(v.rest, n);
                                rangeError = nsec < 0 ? "fractional second" : rangeError;
                                v.take(n);
                            }
                        }
                    }
                    case PM, PM_LOWER -> {
                        if (v.rest.length() < 2) {
                            throw new GoTimeCursor.Bad();
                        }
                        String p = v.take(2);
                        String up = c.std() == GoLayout.Std.PM ? "PM" : "pm";
                        String down = c.std() == GoLayout.Std.PM ? "AM" : "am";
                        if (p.equals(up)) {
                            pm = true;
                        } else if (p.equals(down)) {
                            am = true;
                        } else {
                            throw new GoTimeCursor.Bad();
                        }
                    }
                    case TZ -> {
                        if (v.rest.startsWith("UTC")) {
                            z = GoZone.UTC;
                            v.take(3);
                            break;
                        }
                        int n = GoTimeCursor.zoneNameLength(v.rest);
                        if (n <= 0) {
                            throw new GoTimeCursor.Bad();
                        }
                        zoneName = v.take(n);
                    }
                    case FRAC_0 -> {
                        int n = 1 + c.digits();
                        if (v.rest.length() < n) {
                            throw new GoTimeCursor.Bad();
                        }
                        nsec = GoTimeCursor.nanosOf(v.rest, n);
                        rangeError = nsec < 0 ? "fractional second" : rangeError;
                        v.take(n);
                    }
                    case FRAC_9 -> {
                        if (v.rest.length() < 2 || (v.rest.charAt(0) != '.' && v.rest.charAt(0) != ',') || !v.digitAt(1)) {
                            break;
                        }
                        int i = 0;
                        while (v.digitAt(i + 1)) {
                            i++;
                        }
                        nsec = GoTimeCursor.nanosOf(v.rest, 1 + i);
                        rangeError = nsec < 0 ? "fractional second" : rangeError;
                        v.take(1 + i);
                    }
                    default -> {
                        if (c.std().iso() && v.rest.startsWith("Z")) {
                            v.take(1);
                            z = GoZone.UTC;
                            break;
                        }
                        // ±hh, ±hhmm, ±hh:mm, ±hhmmss or ±hh:mm:ss, as the element says
                        boolean colon = c.std().colon();
                        int n = 3 + (c.std().short_() ? 0 : colon ? 3 : 2) + (c.std().withSeconds() ? colon ? 3 : 2 : 0);
                        if (v.rest.length() < n || (colon && (v.rest.charAt(3) != ':' || (n == 9 && v.rest.charAt(6) != ':')))) {
                            throw new GoTimeCursor.Bad();
                        }
                        String t = v.take(n);
                        String sign = t.substring(0, 1);
                        String digits = colon ? t.substring(1, 3) + t.substring(4, 6) + (n == 9 ? t.substring(7, 9) : "") : t.substring(1);
                        String hh = digits.substring(0, 2);
                        String mm = digits.length() >= 4 ? digits.substring(2, 4) : "00";
                        String ss = digits.length() >= 6 ? digits.substring(4, 6) : "00";
                        int h = new GoTimeCursor(hh).num(true);
                        int m = new GoTimeCursor(mm).num(true);
                        int s = new GoTimeCursor(ss).num(true);
                        if (h > 24) {
                            rangeError = "time zone offset hour";
                        }
                        if (m > 60) {
                            rangeError = "time zone offset minute";
                        }
                        if (s > 60) {
                            rangeError = "time zone offset second";
                        }
                        zoneOffset = (h * 60 + m) * 60 + s;
                        if (sign.equals("-")) {
                            zoneOffset = -zoneOffset;
                        } else if (!sign.equals("+")) {
                            throw new GoTimeCursor.Bad();
                        }
                    }
                }
            } catch (GoTimeCursor.Bad bad) {
                if (!rangeError.isEmpty()) {
                    throw error(layout, value, stdText, v.rest, ": " + rangeError + " out of range");
                }
                throw error(layout, value, stdText, hold, "");
            }
            if (!rangeError.isEmpty()) {
                throw error(layout, value, stdText, v.rest, ": " + rangeError + " out of range");
            }
        }
        if (pm && hour < 12) {
            hour += 12;
        } else if (am && hour == 12) {
            hour = 0;
        }
        if (yday >= 0) {
            int d = 0;
            int m = 0;
            boolean leap = java.time.Year.isLeap(year);
            if (leap) {
                if (yday == 31 + 29) {
                    m = 2;
                    d = 29;
                } else if (yday > 31 + 29) {
                    yday--;
                }
            }
            if (yday < 1 || yday > 365) {
                throw error(layout, value, "", v.rest, ": day-of-year out of range");
            }
            if (m == 0) {
                LocalDate date = LocalDate.ofYearDay(2001, yday); // a common year, as Go's daysBefore table
                m = date.getMonthValue();
                d = date.getDayOfMonth();
            }
            if (month >= 0 && month != m) {
                throw error(layout, value, "", v.rest, ": day-of-year does not match month");
            }
            month = m;
            if (day >= 0 && day != d) {
                throw error(layout, value, "", v.rest, ": day-of-year does not match day");
            }
            day = d;
        } else {
            month = month < 0 ? 1 : month;
            day = day < 0 ? 1 : day;
        }
        if (day < 1 || day > java.time.YearMonth.of(year, month).lengthOfMonth()) {
            throw error(layout, value, "", v.rest, ": day out of range");
        }
        long utc = LocalDateTime.of(year, month, day, hour, min, sec).toEpochSecond(ZoneOffset.UTC);
        if (z != null) {
            return GoTime.date(utc, nsec, z);
        }
        if (zoneOffset != -1) {
            long at = utc - zoneOffset;
            Instant instant = Instant.ofEpochSecond(at);
            if (local.offset(instant) == zoneOffset && (zoneName.isEmpty() || local.abbreviation(instant).equals(zoneName))) {
                return new GoTime(at, nsec, local, null);
            }
            return new GoTime(at, nsec, GoZone.fixed(zoneName, zoneOffset), null);
        }
        if (!zoneName.isEmpty()) {
            Instant instant = Instant.ofEpochSecond(utc);
            if (local.rules() != null && local.abbreviation(instant).equals(zoneName)) { // a named Local's own zone
                return new GoTime(utc - local.offset(instant), nsec, local, null);
            }
            int offset = zoneName.length() > 3 && zoneName.startsWith("GMT") ? Integer.parseInt(zoneName.substring(3)) * 3600 : 0;
            return new GoTime(utc, nsec, GoZone.fixed(zoneName, offset), null);
        }
        return GoTime.date(utc, nsec, defaultZone);
    }

    /** A parse failure, worded as Go's time.ParseError. */
    private static TemplateException error(String layout, String value, String layoutElem, String valueElem, String message) {
        return new TemplateException("parsing time " + GoTime.quote(value) + (message.isEmpty()
                ? " as " + GoTime.quote(layout) + ": cannot parse " + GoTime.quote(valueElem) + " as " + GoTime.quote(layoutElem) : message));
    }
}
