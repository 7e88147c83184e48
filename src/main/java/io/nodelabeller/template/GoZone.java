package io.nodelabeller.template;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;

/**
 * A Go {@code *time.Location}: UTC, {@code Local}, a zone of the IANA database ({@code time.LoadLocation}, its
 * {@code rules}), or a fixed zone that parsing made ({@code time.FixedZone}: a name, possibly empty, and an offset).
 *
 * <p>{@code Local} is UTC: NFD runs with no {@code TZ} and either no {@code /etc/localtime} (its default, minimal
 * image is built from scratch) or Debian's, which is {@code Etc/UTC}; the agent keeps to that on every node whatever
 * the node's own zone, so that a label does not depend on it. Named zones come from the JVM's copy of the IANA
 * database; the abbreviation a layout's {@code MST} prints is Java's English one, which is the database's except
 * where the database has only a number ({@code BRT} where Go prints {@code -03}).
 */
record GoZone(String name, ZoneId rules, String fixedAbbreviation, int fixedOffset) {

    static final GoZone UTC = fixed("UTC", 0);
    static final GoZone LOCAL = new GoZone("Local", null, "UTC", 0);

    /** The zones of the database Java keeps only as fixed offsets, which Go's database also names. */
    private static final Map<String, Integer> FIXED_NAMED = Map.of("EST", -5 * 3600, "MST", -7 * 3600, "HST", -10 * 3600);

    /** The region ids of the JVM's zone database (getAvailableZoneIds copies the set at every call). */
    private static final java.util.Set<String> REGIONS = java.util.Set.copyOf(ZoneId.getAvailableZoneIds());

    private static final DateTimeFormatter ABBREVIATION = DateTimeFormatter.ofPattern("zzz", Locale.US);

    /** time.FixedZone: any offset, also beyond the ±18 h of Java's ZoneOffset (Go reads {@code +24:00}). */
    static GoZone fixed(String name, int offsetSeconds) {
        return new GoZone(name, null, name, offsetSeconds);
    }

    /** time.LoadLocation: a name Go refuses, or a zone the database does not hold, throws Go's error. */
    static GoZone load(String name) throws TemplateException {
        if (name.isEmpty() || name.equals("UTC")) {
            return UTC;
        }
        if (name.equals("Local")) {
            return LOCAL;
        }
        if (name.contains("..") || name.startsWith("/") || name.startsWith("\\")) {
            throw new TemplateException("time: invalid location name");
        }
        if (FIXED_NAMED.containsKey(name)) {
            return fixed(name, FIXED_NAMED.get(name));
        }
        if (!REGIONS.contains(name)) {
            throw new TemplateException("unknown time zone " + name);
        }
        return new GoZone(name, ZoneId.of(name), null, 0);
    }

    int offset(Instant at) {
        return rules == null ? fixedOffset : rules.getRules().getOffset(at).getTotalSeconds();
    }

    /** The instant of a wall clock (read as UTC seconds) in this zone: time.Date's choice in a gap or an overlap. */
    long instantOf(long wallAsUtc) {
        if (rules == null) {
            return wallAsUtc - fixedOffset;
        }
        return java.time.LocalDateTime.ofEpochSecond(wallAsUtc, 0, ZoneOffset.UTC).atZone(rules).toEpochSecond();
    }

    /** The zone's abbreviation at {@code at} ({@code EST}, {@code CEST}); empty for a fixed zone without a name. */
    String abbreviation(Instant at) {
        return fixedAbbreviation != null ? fixedAbbreviation : ABBREVIATION.format(at.atZone(rules));
    }
}
