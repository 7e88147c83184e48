package io.nodelabeller.template;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sprig v3.3.0's date functions (date.go) against Sprig's own tests (date_test.go) and documentation (docs/date.md),
 * with a clock that stands still at 2026-11-28T01:02:03.5Z, 1.5 s after the agent started. Go's int (a literal) and
 * int64 (what Sprig's arithmetic returns) are told apart where Sprig tells them apart.
 */
class SprigDatesTest {

    private static final TemplateClock CLOCK = new TemplateClock(
            InstantSource.fixed(Instant.parse("2026-11-28T01:02:03.5Z")), () -> 1_500_000_000L);

    private static String run(String template, Map<String, Object> data) throws TemplateException {
        return GoTemplate.parse(template).execute(data, CLOCK);
    }

    private static String run(String template) throws TemplateException {
        return run(template, Map.of());
    }

    /** date_test.go: TestAgo (a time 125 s, 2h34m17s before now, and 5 s after). */
    @Test
    void agoAsSprigTestsIt() throws Exception {
        GoTime now = CLOCK.now();
        assertEquals("2m5s", run("{{ ago .Time }}", Map.of("Time", now.add(-125 * GoDuration.SECOND))));
        assertEquals("2h34m17s", run("{{ ago .Time }}", Map.of("Time", now.add(-(2 * 3600 + 34 * 60 + 17) * GoDuration.SECOND))));
        assertEquals("-5s", run("{{ ago .Time }}", Map.of("Time", now.add(5 * GoDuration.SECOND))));
        assertEquals("1m41s", run("{{ ago (sub 1795827623 0) }}"), "an int64 is Unix seconds; 100.5 s rounds away from zero");
    }

    /** date_test.go: TestUnixEpoch and TestDateInZone, over time.Parse("02 Jan 06 15:04:05 MST", "13 Jun 19 20:39:39 GMT"). */
    @Test
    void unixEpochAndDateInZoneAsSprigTestsThem() throws Exception {
        GoTime tm = GoTimeParse.parse("02 Jan 06 15:04:05 MST", "13 Jun 19 20:39:39 GMT", GoZone.UTC, GoZone.LOCAL);
        assertEquals("1560458379", run("{{ unixEpoch .Time }}", Map.of("Time", tm)));
        String tpl = "{{ date_in_zone \"02 Jan 06 15:04 -0700\" .Time \"UTC\" }}";
        assertEquals("13 Jun 19 20:39 +0000", run(tpl, Map.of("Time", tm)));
        assertEquals("28 Nov 26 01:02 +0000", run(tpl, Map.of("Time", "")), "no time: now");
        assertEquals("13 Jun 19 20:39 +0000", run(tpl, Map.of("Time", new Int64(1560458379))));
        assertEquals("13 Jun 19 20:39 +0000", run(tpl, Map.of("Time", 1560458379L)));
        assertEquals("13 Jun 19 20:39 +0000", run(tpl.replace("\"UTC\"", "\"foobar\""), Map.of("Time", tm)), "an unknown zone is UTC");
    }

    /** date_test.go (TestToDate, TestDuration, TestDurationRound) and docs/date.md's examples. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            `{{ toDate "2006-01-02" "2017-12-31" | date "02/01/2006" }}` | 31/12/2017
            {{ duration "61" }} {{ duration "3600" }} {{ duration "93784" }} | 1m1s 1h0m0s 26h3m4s
            {{ durationRound "2h5s" }} {{ durationRound "24h5s" }} {{ durationRound "2400h5s" }} | 2h 1d 3mo
            {{ duration "95" }} {{ durationRound "2h10m5s" }} {{ durationRound "2400h10m5s" }} | 1m35s 2h 3mo
            `{{ now | date "2006-01-02" }} {{ dateInZone "2006-01-02" (now) "UTC" }} {{ now | htmlDate }}` | 2026-11-28 2026-11-28 2026-11-28
            `{{ htmlDateInZone (now) "UTC" }} {{ now | unixEpoch }}`   | 2026-11-28 1795827723
            `{{ now | date_modify "-1.5h" | date "15:04" }} {{ now | dateModify "bad" | date "15:04" }}` | 23:32 01:02
            """)
    void asSprigGivesIt(String template, String want) throws Exception {
        assertEquals(want, run(template));
    }

    /** Sprig's type switches: a literal is Go's int, arithmetic gives int64, and the two differ where Sprig looks. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {{ duration 95 }} {{ duration (int64 95) }} {{ duration (add 90 5) }} {{ duration "x" }} | 0s 1m35s 1m35s 0s
            {{ durationRound 7200000000000 }} {{ durationRound (mul 7200 1000000000) }} {{ durationRound (now) }} | 0s 2h 0s
            {{ typeOf (add 1 2) }} {{ typeOf 3 }} {{ typeOf (len "ab") }} {{ typeOf (int (add 1 2)) }} {{ printf "%T" (max 1 2) }} | int64 int int int int64
            {{ has 1 (list 1) }} {{ has (add 0 1) (list 1) }} {{ eq 1 (add 0 1) }} {{ lt 1 (add 1 1) }} {{ deepEqual 1 (int64 1) }} | true false true true false
            {{ range $i, $v := list "a" "b" }}{{ typeOf $i }} {{ end }}{{ range $i := add 0 2 }}{{ typeOf $i }}{{ $i }} {{ end }} | `int int int640 int641 `
            {{ add1 (atoi "41") }} {{ index (list "a" "b") (add 0 1) }} {{ printf "%x %d" (add 255 0) (sub 0 7) }} | 42 b ff -7
            """)
    void intAndInt64AsSprigTellsThem(String template, String want) throws Exception {
        assertEquals(want, run(template));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {{ now }}                                             | 2026-11-28 01:02:03.5 +0000 UTC m=+1.500000000
            {{ now.UTC }} {{ now.Unix }}                          | 2026-11-28 01:02:03.5 +0000 UTC 1795827723
            {{ (now).Year }} {{ (now).YearDay }} {{ (now).Unix }} {{ typeOf (now).Unix }} {{ (now).UTC }} | 2026 332 1795827723 int64 2026-11-28 01:02:03.5 +0000 UTC
            {{ typeOf now }} {{ kindOf now }} {{ empty now }} {{ toJson (list now) }} | time.Time struct false ["2026-11-28T01:02:03.5Z"]
            {{ dateInZone "2006-01-02 15:04 MST" (now) "Europe/Paris" }} {{ dateInZone "15:04 MST" (now) "America/New_York" }} | 2026-11-28 02:02 CET 20:02 EST
            {{ dateInZone "15:04 -0700" (now) "EST" }} {{ dateInZone "15:04" (now) "../etc/passwd" }} {{ date "15:04" 90 }} | 20:02 -0500 01:02 00:01
            {{ toDate "2006-01-02" "x" }} {{ (toDate "2006-01-02" "x").IsZero }} | 0001-01-01 00:00:00 +0000 UTC true
            `{{ toDate "2006-01-02T15:04:05Z07:00" "2024-02-29T10:00:00+02:00" | date "Mon Jan _2 15:04:05 MST 2006" }}` | Thu Feb 29 08:00:00 UTC 2024
            {{ toDate "2006-01-02 15:04 MST" "2024-02-29 10:00 PST" }} | 2024-02-29 10:00:00 +0000 PST
            {{ (now).Format "Jan _2 15:04:05.000" }} {{ now.Format "2006" }} {{ (now).Month }} {{ (now).Weekday }} | Nov 28 01:02:03.500 2026 November Saturday
            {{ printf "%d %v %T" (now).Month (now).Month (now).Weekday }} {{ eq (now).Month 11 }} {{ add (now).Month 1 }} {{ toJson (list (now).Month) }} | 11 November time.Weekday true 12 [11]
            `{{ range $m := (toDate "01" "03").Month }}{{ $m }},{{ end }} {{ date "2006" (toDate "01" "03").Month }}` | `%!Month(0),January,February, 2026`
            {{ $d := (toDate "15:04" "01:30").Sub (toDate "15:04" "00:00") }}{{ $d }} {{ $d.Hours }} {{ $d.Minutes }} {{ $d.Seconds }} {{ printf "%d %T" $d $d }} | 1h30m0s 1.5 90 5400 5400000000000 time.Duration
            {{ $d := (toDate "15:04" "01:30").Sub (toDate "15:04" "00:00") }}{{ $d.Round 3600000000000 }} {{ $d.Truncate 3600000000000 }} {{ $d.Milliseconds }} {{ ((now).Sub (dateModify "5m" now)).Abs }} | 2h0m0s 1h0m0s 5400000 5m0s
            {{ eq now now }} {{ eq (toDate "2006" "2020") (toDate "2006" "2020") }} {{ eq now (toDate "2006" "2020") (now).UTC }} {{ eq (now).UTC (now).UTC }} | true true false true
            {{ (now).Sub now }} {{ ((now).Add 3600000000000).Format "15:04" }} {{ (now).Compare (toDate "2006" "2020") }} {{ (now).IsDST }} {{ eq ((now).Sub now) 0 }} | 0s 02:02 1 false true
            {{ ((toDate "15:04:05.0" "12:15:30.5").Round 1000000000).Format "15:04:05.0" }} {{ ((toDate "15:04:05.0" "12:15:30.5").Truncate 1000000000).Format "15:04:05.0" }} {{ ((toDate "15:04:05.0" "12:15:31.5").Round 3600000000000).Format "15:04:05.0" }} | 12:15:31.0 12:15:30.0 12:00:00.0
            {{ ((toDate "2006-01-02" "2024-01-31").AddDate 0 1 0).Format "2006-01-02" }} {{ (now).After (toDate "2006" "2020") }} {{ (now).Before (toDate "2006" "2020") }} {{ (now).Equal now }} | 2024-03-02 true false true
            """)
    void timesAsGoHasThem(String template, String want) throws Exception {
        assertEquals(want, run(template));
    }

    /** Each template fails with a message that holds the text after it, as Go's error does. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {{ mustToDate "2006-01-02" "x" }}        | `error calling mustToDate: parsing time "x" as "2006-01-02": cannot parse "x" as "2006"`
            `{{ now | mustDateModify "1d" }}`        | `time: unknown unit "d" in duration "1d"`
            {{ unixEpoch "2024" }}                   | expected time.Time; got string
            {{ (now).Year 5 }}                       | wrong number of args for Year: want 0 got 1
            {{ (semver "1.2.3").Major 5 }}           | wrong number of args for Major: want 0 got 1
            {{ (now).Format 2006 }}                  | expected string; got int
            {{ substr 0 (add 1 1) "abc" }}           | expected int; got int64
            {{ repeat 1000000000 "ab" }}             | exceeds the 1048576
            {{ until 2000000000 }}                   | exceeds the 1048576
            {{ indent 2000000000 "x" }}              | exceeds the 1048576
            {{ repeat -1 "x" }}                      | strings: negative Repeat count
            {{ (now).Add (int64 1) }}                | expected time.Duration; got int64
            `{{ now | dateModify 5 }}`               | expected string; got int
            {{ ((now).Sub now).Hours 1 }}            | wrong number of args for Hours: want 0 got 1
            {{ $x := 1 }}{{ $x 2 }}                  | can't give argument to non-function $x
            `{{ $x := 1 }}{{ 2 | $x }}`              | can't give argument to non-function $x
            """)
    void failsAsGo(String template, String message) {
        TemplateException e = assertThrows(TemplateException.class, () -> run(template));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    /** Go prints some year for time.Unix(1<<63-1, 0); Java's dates end at year 999999999: the rule fails, nothing else. */
    @Test
    void aTimeBeyondJavasYearsFailsTheRule() {
        TemplateException e = assertThrows(TemplateException.class,
                () -> run("{{ date \"2006\" (int64 9223372036854775807) }}"));
        assertTrue(e.getMessage().startsWith("error calling date: "), e.getMessage());
        TemplateException method = assertThrows(TemplateException.class,
                () -> run("{{ (toDate \"2006\" \"2024\").Year }}{{ ((toDate \"2006\" \"2024\").AddDate 999999999 0 0).Year }}"));
        assertTrue(method.getMessage().contains("AddDate"), method.getMessage());
    }

    @Test
    void aWidthPastAMillionTakesTheRestOfTheFormat() throws Exception {
        // fmt's parsenum: a width past 10^6 takes the rest of the format with it
        assertEquals("%!(NOVERB)%!(EXTRA int=1)", run("{{ printf \"%99999999d\" 1 }}"));
    }

    /** The system clock: Local is UTC whatever the JVM's own zone. */
    @Test
    void theSystemClockGivesNowInUtc() throws Exception {
        java.util.TimeZone before = java.util.TimeZone.getDefault();
        java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("Asia/Tokyo"));
        try {
            String out = GoTemplate.parse("{{ now | date \"MST -0700\" }}").execute(Map.of());
            assertEquals("UTC +0000", out);
        } finally {
            java.util.TimeZone.setDefault(before);
        }
    }
}
