package io.nodelabeller.template;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.LocalDateTime;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Go's time layouts and durations as Sprig's date functions use them, against Go's own test tables (src/time/
 * format_test.go: formatTests, rfc3339Formats, parseTests, parseErrorTests, parseTimeZoneTests,
 * secondsTimeZoneOffsetTests, dayOutOfRangeTests, monthOutOfRangeTests, the noon/midnight and yday tests;
 * src/time/time_test.go: durationTests, parseDurationTests, durationRoundTests). Go's tests run with Local set to
 * America/Los_Angeles; the rows whose answer depends on that (a value naming {@code PST}) are left out, the agent's
 * Local being UTC.
 */
class GoTimeTest {

    private static final long SECOND = 1_000_000_000L;
    private static final GoZone PST = GoZone.fixed("PST", -8 * 3600);

    private static GoTime date(int y, int mo, int d, int h, int mi, int s, int ns, GoZone z) {
        long wall = LocalDateTime.of(y, mo, d, h, mi, s).toEpochSecond(ZoneOffset.UTC);
        return new GoTime(wall - z.offset(java.time.Instant.ofEpochSecond(wall)), ns, z, null);
    }

    /** formatTests, over Unix(0, 1233810057012345600) in Los Angeles (Thu Feb 4 21:00:57.012345600 PST 2009). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            Mon Jan _2 15:04:05 2006                 | Wed Feb  4 21:00:57 2009
            Mon Jan _2 15:04:05 MST 2006             | Wed Feb  4 21:00:57 PST 2009
            Mon Jan 02 15:04:05 -0700 2006           | Wed Feb 04 21:00:57 -0800 2009
            02 Jan 06 15:04 MST                      | 04 Feb 09 21:00 PST
            `Monday, 02-Jan-06 15:04:05 MST`         | `Wednesday, 04-Feb-09 21:00:57 PST`
            `Mon, 02 Jan 2006 15:04:05 MST`          | `Wed, 04 Feb 2009 21:00:57 PST`
            `Mon, 02 Jan 2006 15:04:05 -0700`        | `Wed, 04 Feb 2009 21:00:57 -0800`
            2006-01-02T15:04:05Z07:00                | 2009-02-04T21:00:57-08:00
            2006-01-02T15:04:05.999999999Z07:00      | 2009-02-04T21:00:57.0123456-08:00
            3:04PM                                   | 9:00PM
            3pm                                      | 9pm
            3PM                                      | 9PM
            06 01 02                                 | 09 02 04
            `Hi Janet, the Month is January`         | `Hi Janet, the Month is February`
            Jan _2 15:04:05                          | Feb  4 21:00:57
            Jan _2 15:04:05.000                      | Feb  4 21:00:57.012
            Jan _2 15:04:05.000000                   | Feb  4 21:00:57.012345
            Jan _2 15:04:05.000000000                | Feb  4 21:00:57.012345600
            Jan  2 002 __2 2                         | Feb  4 035  35 4
            15:04:05,000                             | 21:00:57,012
            """)
    void formatsAsGo(String layout, String want) {
        assertEquals(want, new GoTime(1233810057, 12345600, PST, null).format(layout));
    }

    @Test
    void formatsYearsZonesAndTheClockAsGo() {
        assertEquals("4:5:6", date(2001, 2, 3, 4, 5, 6, 700000000, GoZone.UTC).format("3:4:5"));
        assertEquals("2008-09-17T20:04:26Z", date(2008, 9, 17, 20, 4, 26, 0, GoZone.UTC).format("2006-01-02T15:04:05Z07:00"));
        assertEquals("1994-09-17T20:04:26-05:00",
                date(1994, 9, 17, 20, 4, 26, 0, GoZone.fixed("EST", -18000)).format("2006-01-02T15:04:05Z07:00"));
        assertEquals("2000-12-26T01:15:06+04:20",
                date(2000, 12, 26, 1, 15, 6, 0, GoZone.fixed("OTO", 15600)).format("2006-01-02T15:04:05Z07:00"));
        for (int y : new int[] {-10001, -999, -1, 0, 1, 99, 999, 1000, 9999, 10000, 100001}) {
            String want = y < 0 ? String.format("-%04d.01.01", -y) : String.format("%04d.01.01", y);
            assertEquals(want, date(y, 1, 1, 0, 0, 0, 0, GoZone.UTC).format("2006.01.02"));
        }
        assertEquals("12:00PM", date(0, 1, 1, 12, 0, 0, 0, GoZone.UTC).format("03:04PM"));
        assertEquals("12:00AM", date(0, 1, 1, 0, 0, 0, 0, GoZone.UTC).format("3:04PM"));
        // JSON as Time.MarshalJSON writes it (time_test.go jsonTests)
        assertEquals("9999-04-12T23:20:50.52Z", date(9999, 4, 12, 23, 20, 50, 520_000_000, GoZone.UTC).format(GoTime.RFC3339_NANO));
        assertEquals("0000-01-01T00:00:00.000000001+00:01",
                date(0, 1, 1, 0, 0, 0, 1, GoZone.fixed("", 60)).format(GoTime.RFC3339_NANO));
        // a fixed zone without a name prints its offset for MST
        assertEquals("-0500", date(2006, 2, 2, 16, 10, 3, 0, GoZone.fixed("", -18000)).format("MST"));
        assertEquals("0001-01-01 00:00:00 +0000 UTC", GoTime.ZERO.toString());
        assertEquals("2026-11-28 01:02:03.5 +0000 UTC m=+1.500000000",
                new GoTime(1795827723, 500_000_000, GoZone.LOCAL, 1_500_000_000L).toString());
    }

    /** TestAddDate: four ways from Fri Nov 18 7:56:35 2011 to Thu Mar 19 7:56:35 2016, time.Date normalizing. */
    @Test
    void addsDatesAsGo() throws Exception {
        GoTime t0 = date(2011, 11, 18, 7, 56, 35, 0, GoZone.UTC);
        for (long[] d : new long[][] {{4, 4, 1}, {3, 16, 1}, {3, 15, 30}, {5, -6, -18 - 30 - 12}}) {
            GoTime t = (GoTime) t0.call("AddDate", java.util.List.of(d[0], d[1], d[2]));
            assertEquals("2016-03-19 07:56:35", t.format("2006-01-02 15:04:05"));
        }
    }

    /** secondsTimeZoneOffsetTests: both ways. */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
            2006-01-02T15:04:05-070000   | 1871-01-01T05:33:02-003408  | -2048
            2006-01-02T15:04:05-07:00:00 | 1871-01-01T05:33:02-00:34:08 | -2048
            2006-01-02T15:04:05-070000   | 1871-01-01T05:33:02+003408  | 2048
            2006-01-02T15:04:05-07:00:00 | 1871-01-01T05:33:02+00:34:08 | 2048
            2006-01-02T15:04:05Z070000   | 1871-01-01T05:33:02-003408  | -2048
            2006-01-02T15:04:05Z07:00:00 | 1871-01-01T05:33:02+00:34:08 | 2048
            2006-01-02T15:04:05-07       | 1871-01-01T05:33:02+01      | 3600
            2006-01-02T15:04:05-07       | 1871-01-01T05:33:02-02      | -7200
            2006-01-02T15:04:05Z07       | 1871-01-01T05:33:02-02      | -7200
            """)
    void readsAndWritesOffsetsWithSeconds(String layout, String value, int offset) throws Exception {
        GoTime t = GoTimeParse.parse(layout, value, GoZone.UTC, GoZone.LOCAL);
        assertEquals(offset, t.zone().offset(t.instant()));
        assertEquals(value, date(1871, 1, 1, 5, 33, 2, 0, GoZone.fixed("LMT", offset)).format(layout));
    }

    /** parseTests that do not lean on Los Angeles: each reads as Thu Feb 4 21:00:57 2010 with its fraction. */
    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            Mon Jan _2 15:04:05 2006                   | Thu Feb  4 21:00:57 2010                | 0         | 0
            Mon Jan 02 15:04:05 -0700 2006             | Thu Feb 04 21:00:57 -0800 2010          | 0         | -28800
            `Mon, 02 Jan 2006 15:04:05 -0700`          | `Thu, 04 Feb 2010 21:00:57 -0800`       | 0         | -28800
            2006-01-02T15:04:05Z07:00                  | 2010-02-04T21:00:57-08:00               | 0         | -28800
            2006-01-02 15:04:05-07                     | 2010-02-04 21:00:57-08                  | 0         | -28800
            Mon Jan _2 15:04:05 2006                   | Thu Feb  4 21:00:57.0 2010              | 0         | 0
            Mon Jan 02 15:04:05 -0700 2006             | Thu Feb 04 21:00:57.012 -0800 2010      | 12000000  | -28800
            `Mon, 02 Jan 2006 15:04:05 -0700`          | `Thu, 04 Feb 2010 21:00:57.01234 -0800` | 12340000  | -28800
            2006-01-02T15:04:05Z07:00                  | 2010-02-04T21:00:57.012345678-08:00     | 12345678  | -28800
            2006-01-02 15:04:05                        | 2010-02-04 21:00:57.0                   | 0         | 0
            Mon Jan _2 15:04:05 2006                   | Thu Feb 4 21:00:57 2010                 | 0         | 0
            Mon Jan _2 15:04:05 2006                   | Thu      Feb     4     21:00:57     2010 | 0     | 0
            Mon Jan _2 15:04:05 2006                   | THU FEB 4 21:00:57 2010                 | 0         | 0
            Mon Jan _2 15:04:05 2006                   | thu feb 4 21:00:57 2010                 | 0         | 0
            Mon Jan _2 15:04:05.000 2006               | Thu Feb  4 21:00:57.012 2010            | 12000000  | 0
            Mon Jan _2 15:04:05.000000000 2006         | Thu Feb  4 21:00:57.012345678 2010      | 12345678  | 0
            Mon Jan _2 15:04:05,000 2006               | Thu Feb  4 21:00:57.012 2010            | 12000000  | 0
            2006.01.02.15.04.05.0                      | 2010.02.04.21.00.57.0                   | 0         | 0
            2006.01.02.15.04.05.00                     | 2010.02.04.21.00.57.01                  | 10000000  | 0
            `Hi Janet, the Month is January: Jan _2 15:04:05 2006` | `Hi Janet, the Month is February: Feb  4 21:00:57 2010` | 0 | 0
            2006-01-02 15:04:05.9999 -0700             | 2010-02-04 21:00:57 -0800               | 0         | -28800
            2006-01-02 15:04:05.999999999 -0700        | 2010-02-04 21:00:57.0123 -0800          | 12300000  | -28800
            `2006-01-02 15:04:05,9999 -0700`           | `2010-02-04 21:00:57.012345678 -0800`   | 12345678  | -28800
            2006-01-02 002 15:04:05                    | 2010-02-04 035 21:00:57                 | 0         | 0
            2006-01 002 15:04:05                       | 2010-02 035 21:00:57                    | 0         | 0
            2006-002 15:04:05                          | 2010-035 21:00:57                       | 0         | 0
            200600201 15:04:05                         | 201003502 21:00:57                      | 0         | 0
            200600204 15:04:05                         | 201003504 21:00:57                      | 0         | 0
            """)
    void parsesAsGo(String layout, String value, int nanos, int offset) throws Exception {
        GoTime t = GoTimeParse.parse(layout, value, GoZone.UTC, GoZone.LOCAL);
        assertEquals("2010-02-04 21:00:57", t.format("2006-01-02 15:04:05"));
        assertEquals(nanos, t.nanos());
        assertEquals(offset, t.zone().offset(t.instant()));
    }

    @Test
    void parsesZonesTwelvesAndDaysOfTheYearAsGo() throws Exception {
        GoTime gmt = GoTimeParse.parse("Mon Jan _2 15:04:05 MST 2006", "Fri Feb  5 05:00:57 GMT-8 2010", GoZone.UTC, GoZone.LOCAL);
        assertEquals(-28800, gmt.zone().offset(gmt.instant()));
        // as in Go, the wall clock is read as UTC and shown in the zone: checkTime wants Thu Feb 4 21:00:57
        assertEquals("Thu Feb  4 21:00:57 GMT-8 2010", gmt.format("Mon Jan _2 15:04:05 MST 2006"));
        assertEquals(12L, GoTimeParse.parse("3:04PM", "12:00PM", GoZone.UTC, GoZone.LOCAL).call("Hour", java.util.List.of()));
        assertEquals(0L, GoTimeParse.parse("03:04PM", "12:00AM", GoZone.UTC, GoZone.LOCAL).call("Hour", java.util.List.of()));
        assertEquals("Thu Feb  2 16:10:03 -0500 2006", GoTimeParse.parse("Mon Jan 02 15:04:05 -0700 2006",
                "Thu Feb 02 16:10:03 -0500 2006", GoZone.UTC, GoZone.LOCAL).format("Mon Jan _2 15:04:05 MST 2006"));
        GoTime minutes = GoTimeParse.parse("Mon Jan 02 15:04:05 -0700 2006", "Mon Jan 02 15:04:05 +0123 2006", GoZone.UTC, GoZone.LOCAL);
        assertEquals(83 * 60, minutes.zone().offset(minutes.instant()));
        GoTime underscore = GoTimeParse.parse("15:04_20060102", "14:38_20150618", GoZone.UTC, GoZone.LOCAL);
        assertEquals("2015-06-18 14:38", underscore.format("2006-01-02 15:04"));
        for (int i = 1; i <= 365; i++) {
            GoTime t = GoTimeParse.parse("2006-002", String.format("2020-%03d", i), GoZone.UTC, GoZone.LOCAL);
            assertEquals((long) i, t.call("YearDay", java.util.List.of()));
        }
        // Go takes offsets up to 24 hours (hour ≤ 24, minute and second ≤ 60), beyond Java's ±18 h
        GoTime far = GoTimeParse.parse("2006-01-02 15:04 -07:00", "2024-01-01 00:00 +24:00", GoZone.UTC, GoZone.LOCAL);
        assertEquals("2024-01-01 00:00 +24:00", far.format("2006-01-02 15:04 -07:00"));
        assertEquals("2023-12-31 00:00", ((GoTime) far.call("UTC", java.util.List.of())).format("2006-01-02 15:04"));
        // an unknown abbreviation is a zone of that name at offset 0; UTC and an offset equal to Local's are Local
        GoTime pst = GoTimeParse.parse("MST", "PST", GoZone.LOCAL, GoZone.LOCAL);
        assertEquals("PST +0000", pst.format("MST -0700"));
        assertEquals("Local", GoTimeParse.parse("-0700", "+0000", GoZone.LOCAL, GoZone.LOCAL).zone().name());
    }

    /** parseErrorTests, dayOutOfRangeTests, monthOutOfRangeTests, TestStd0xParseError: each message as Go words it. */
    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            Mon Jan _2 15:04:05 2006        | Feb  4 21:00:60 2010              | cannot parse
            Mon Jan _2 15:04:05 2006        | Thu Feb  4 21:00:57 @2010         | cannot parse
            Mon Jan _2 15:04:05 2006        | Thu Feb  4 21:00:60 2010          | second out of range
            Mon Jan _2 15:04:05 2006        | Thu Feb  4 21:61:57 2010          | minute out of range
            Mon Jan _2 15:04:05 2006        | Thu Feb  4 24:00:60 2010          | hour out of range
            Mon Jan _2 15:04:05.000 2006    | Thu Feb  4 23:00:59x01 2010       | cannot parse
            Mon Jan _2 15:04:05.000 2006    | Thu Feb  4 23:00:59.xxx 2010      | cannot parse
            Mon Jan _2 15:04:05.000 2006    | Thu Feb  4 23:00:59.-123 2010     | fractional second out of range
            Jan _2 15:04:05.000000000       | Dec  7 11:22:01.000000            | `cannot parse ".000000" as ".000000000"`
            Jan _2 15:04:05.000000000       | Dec  7 11:22:01.0000000000        | `extra text: "0"`
            2006-01-02T15:04:05Z07:00       | 2006-01-02T15:04:05Z07:00         | `parsing time "2006-01-02T15:04:05Z07:00": extra text: "07:00"`
            2006-01-02T15:04:05Z07:00       | 2006-01-02T15:04_abc              | `parsing time "2006-01-02T15:04_abc" as "2006-01-02T15:04:05Z07:00": cannot parse "_abc" as ":"`
            2006-01-02T15:04:05Z07:00       | 2006-01-02T15:04:05_abc           | `parsing time "2006-01-02T15:04:05_abc" as "2006-01-02T15:04:05Z07:00": cannot parse "_abc" as "Z07:00"`
            2006-01-02T15:04:05Z07:00       | 2006-01-02T15:04:05Z_abc          | `parsing time "2006-01-02T15:04:05Z_abc": extra text: "_abc"`
            2006-01-02T15:04:05Z07:00       | 2010-02-04T21:00:67.012345678-08:00 | second out of range
            _2 Jan 06 15:04 MST             | 4 --- 00 00:00 GMT                | cannot parse
            _2 January 06 15:04 MST         | 4 --- 00 00:00 GMT                | cannot parse
            Jan _2 002 2006                 | Feb  4 034 2006                   | day-of-year does not match day
            Jan _2 002 2006                 | Feb  4 004 2006                   | day-of-year does not match month
            Mon Jan _2 15:04:05 2006        | Thu Jan 99 21:00:57 2010          | day out of range
            Mon Jan _2 15:04:05 2006        | Thu Feb 29 21:00:57 2010          | day out of range
            Mon Jan _2 15:04:05 2006        | Thu Apr 31 21:00:57 2010          | day out of range
            Mon Jan _2 15:04:05 2006        | Thu Dec 00 21:00:57 2010          | day out of range
            01-02                           | 00-01                             | month out of range
            01-02                           | 13-01                             | month out of range
            01 MST                          | 0 MST                             | `cannot parse "0 MST" as "01"`
            `Monday, 02-Jan-06 15:04:05 MST` | `Thursday, 04-Feb-1 21:00:57 PST` | `cannot parse "1 21:00:57 PST" as "06"`
            """)
    void refusesAsGo(String layout, String value, String message) {
        TemplateException e = assertThrows(TemplateException.class, () -> GoTimeParse.parse(layout, value, GoZone.UTC, GoZone.LOCAL));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void acceptsTheDaysGoAccepts() throws Exception {
        for (String ok : new String[] {"Thu Jan 31 21:00:57 2010", "Thu Feb 28 21:00:57 2012", "Thu Feb 29 21:00:57 2012",
            "Thu Apr 30 21:00:57 2010", "Thu Dec 31 21:00:57 2010"}) {
            GoTimeParse.parse("Mon Jan _2 15:04:05 2006", ok, GoZone.UTC, GoZone.LOCAL);
        }
    }

    /** parseTimeZoneTests: how long a zone abbreviation in a value is. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            gmt hi there    | 0
            GMT hi there    | 3
            GMT+12 hi there | 6
            GMT+00 hi there | 6
            GMT+            | 3
            GMT+3           | 5
            GMT+a           | 3
            GMT+3a          | 5
            GMT-5 hi there  | 5
            GMT-51 hi there | 3
            ChST hi there   | 4
            MeST hi there   | 4
            MSDx            | 3
            MSDY            | 0
            ESAST hi        | 5
            ESASTT hi       | 0
            ESATY hi        | 0
            WITA hi         | 4
            +03 hi          | 3
            -04 hi          | 3
            +00             | 3
            -23             | 3
            -24             | 0
            +14             | 3
            +24             | 0
            """)
    void measuresZoneAbbreviationsAsGo(String value, int length) {
        assertEquals(length, GoTimeCursor.zoneNameLength(value));
    }

    /** durationTests (Duration.String). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            0s                        | 0
            1ns                       | 1
            1.1µs                     | 1100
            2.2ms                     | 2200000
            3.3s                      | 3300000000
            4m5s                      | 245000000000
            4m5.001s                  | 245001000000
            5h6m7.001s                | 18367001000000
            8m0.000000001s            | 480000000001
            2562047h47m16.854775807s  | 9223372036854775807
            -2562047h47m16.854775808s | -9223372036854775808
            """)
    void writesDurationsAsGo(String text, long nanos) {
        assertEquals(text, GoDuration.format(nanos));
    }

    /** parseDurationTests (Go 1.26's ParseDuration also reads the smallest Duration, which older tables refused). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            0                          | 0
            5s                         | 5000000000
            1478s                      | 1478000000000
            -5s                        | -5000000000
            +5s                        | 5000000000
            -0                         | 0
            +0                         | 0
            5.0s                       | 5000000000
            5.6s                       | 5600000000
            5.s                        | 5000000000
            .5s                        | 500000000
            1.004s                     | 1004000000
            1.0040s                    | 1004000000
            100.00100s                 | 100001000000
            10ns                       | 10
            11us                       | 11000
            12µs                       | 12000
            12μs                       | 12000
            13ms                       | 13000000
            15m                        | 900000000000
            16h                        | 57600000000000
            3h30m                      | 12600000000000
            10.5s4m                    | 250500000000
            -2m3.4s                    | -123400000000
            1h2m3s4ms5us6ns            | 3723004005006
            39h9m14.425s               | 140954425000000
            52763797000ns              | 52763797000
            0.3333333333333333333h     | 1200000000000
            9007199254740993ns         | 9007199254740993
            9223372036854775807ns      | 9223372036854775807
            9223372036854775.807us     | 9223372036854775807
            9223372036s854ms775us807ns | 9223372036854775807
            -9223372036854775807ns     | -9223372036854775807
            -9223372036854775808ns     | -9223372036854775808
            0.100000000000000000000h   | 360000000000
            0.830103483285477580700h   | 2988372539827
            """)
    void readsDurationsAsGo(String text, long nanos) throws Exception {
        assertEquals(nanos, GoDuration.parse(text));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            ``                        | `time: invalid duration ""`
            3                         | `time: missing unit in duration "3"`
            -                         | `time: invalid duration "-"`
            s                         | `time: invalid duration "s"`
            .                         | `time: invalid duration "."`
            -.                        | `time: invalid duration "-."`
            .s                        | `time: invalid duration ".s"`
            +.s                       | `time: invalid duration "+.s"`
            1d                        | `time: unknown unit "d" in duration "1d"`
            3000000h                  | `time: invalid duration "3000000h"`
            9223372036854775808ns     | `time: invalid duration "9223372036854775808ns"`
            9223372036854775.808us    | `time: invalid duration "9223372036854775.808us"`
            9223372036854ms775us808ns | `time: invalid duration "9223372036854ms775us808ns"`
            """)
    void refusesDurationsAsGo(String text, String message) {
        assertEquals(message, assertThrows(TemplateException.class, () -> GoDuration.parse(text)).getMessage());
    }

    /** durationRoundTests. */
    @Test
    void roundsDurationsAsGo() {
        long minute = 60 * SECOND;
        assertEquals(0, GoDuration.round(0, SECOND));
        assertEquals(minute, GoDuration.round(minute, -11 * SECOND));
        assertEquals(minute, GoDuration.round(minute, 0));
        assertEquals(2 * minute, GoDuration.round(2 * minute + 10 * SECOND, minute));
        assertEquals(3 * minute, GoDuration.round(2 * minute + 30 * SECOND, minute));
        assertEquals(-2 * minute, GoDuration.round(-2 * minute - 10 * SECOND, minute));
        assertEquals(-3 * minute, GoDuration.round(-2 * minute - 30 * SECOND, minute));
        assertEquals(9_000_000_000_000_000_000L, GoDuration.round(8_000_000_000_000_000_000L, 3_000_000_000_000_000_000L));
        assertEquals(Long.MAX_VALUE, GoDuration.round(9_000_000_000_000_000_000L, 5_000_000_000_000_000_000L));
        assertEquals(Long.MIN_VALUE, GoDuration.round(-9_000_000_000_000_000_000L, 5_000_000_000_000_000_000L));
        assertEquals(3L << 61, GoDuration.round((3L << 61) - 1, 3L << 61));
    }
}
