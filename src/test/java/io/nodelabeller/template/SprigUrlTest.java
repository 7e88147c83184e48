package io.nodelabeller.template;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sprig's {@code urlParse} and {@code urlJoin} (url.go, v3.3.0) and the net/url behaviour under them, held to the
 * tables of their own tests: Sprig's url_test.go (urlTests, TestUrlJoin) and Go's src/net/url/url_test.go (urltests
 * with their round trips, TestParseErrors, TestURLHostnameAndPort, stringURLTests, TestInvalidUserPassword,
 * TestRejectControlCharacters), transcribed. Go's table as read predates three changes NFD v0.19's Go (1.26) has,
 * each from its release notes, and the rows they change are marked: Go 1.19's {@code URL.OmitHost}
 * ({@code mailto:/x} prints as written), Go 1.26's strict colons in a host ({@code http://::1/},
 * {@code http://x:80:80/} and the two "malformed IPv6 but still accepted" rows are errors), and Go 1.26.1's IP-literal
 * checks (CVE-2026-25679: brackets only at the start of a host; and only an IPv6 address in them).
 */
class SprigUrlTest {

    /** One row of Go's urltests: the URL, what Parse makes of it, and String()'s result ("" = the URL itself). */
    private record Row(String in, String scheme, String opaque, String user, String password, String host, String path,
                       String rawPath, boolean forceQuery, String rawQuery, String fragment, String rawFragment,
                       String roundtrip) {
    }

    private static final List<Row> URLTESTS = new ArrayList<>();

    /** scheme, host, path and query: most rows. */
    private static void row(String in, String scheme, String host, String path, String rawQuery, String roundtrip) {
        URLTESTS.add(new Row(in, scheme, "", null, null, host, path, "", false, rawQuery, "", "", roundtrip));
    }

    private static void add(Row r) {
        URLTESTS.add(r);
    }

    static {
        row("http://www.google.com", "http", "www.google.com", "", "", "");
        row("http://www.google.com/", "http", "www.google.com", "/", "", "");
        add(new Row("http://www.google.com/file%20one%26two", "http", "", null, null, "www.google.com", "/file one&two",
                "/file%20one%26two", false, "", "", "", ""));
        add(new Row("http://www.google.com/#file%20one%26two", "http", "", null, null, "www.google.com", "/", "", false,
                "", "file one&two", "file%20one%26two", ""));
        add(new Row("ftp://webmaster@www.google.com/", "ftp", "", "webmaster", null, "www.google.com", "/", "", false,
                "", "", "", ""));
        add(new Row("ftp://john%20doe@www.google.com/", "ftp", "", "john doe", null, "www.google.com", "/", "", false,
                "", "", "", "ftp://john%20doe@www.google.com/"));
        add(new Row("http://www.google.com/?", "http", "", null, null, "www.google.com", "/", "", true, "", "", "", ""));
        row("http://www.google.com/?foo=bar?", "http", "www.google.com", "/", "foo=bar?", "");
        row("http://www.google.com/?q=go+language", "http", "www.google.com", "/", "q=go+language", "");
        row("http://www.google.com/?q=go%20language", "http", "www.google.com", "/", "q=go%20language", "");
        row("http://www.google.com/a%20b?q=c+d", "http", "www.google.com", "/a b", "q=c+d", "");
        add(new Row("http:www.google.com/?q=go+language", "http", "www.google.com/", null, null, "", "", "", false,
                "q=go+language", "", "", "http:www.google.com/?q=go+language"));
        add(new Row("http:%2f%2fwww.google.com/?q=go+language", "http", "%2f%2fwww.google.com/", null, null, "", "", "",
                false, "q=go+language", "", "", "http:%2f%2fwww.google.com/?q=go+language"));
        // Go 1.19 (URL.OmitHost): no longer the "unfortunate compromise" mailto:///webmaster@golang.org
        row("mailto:/webmaster@golang.org", "mailto", "", "/webmaster@golang.org", "", "");
        add(new Row("mailto:webmaster@golang.org", "mailto", "webmaster@golang.org", null, null, "", "", "", false, "",
                "", "", ""));
        row("/foo?query=http://bad", "", "", "/foo", "query=http://bad", "");
        row("//foo", "", "foo", "", "", "");
        add(new Row("//user@foo/path?a=b", "", "", "user", null, "foo", "/path", "", false, "a=b", "", "", ""));
        row("///threeslashes", "", "", "///threeslashes", "", "");
        add(new Row("http://user:password@google.com", "http", "", "user", "password", "google.com", "", "", false, "",
                "", "", "http://user:password@google.com"));
        add(new Row("http://j@ne:password@google.com", "http", "", "j@ne", "password", "google.com", "", "", false, "",
                "", "", "http://j%40ne:password@google.com"));
        add(new Row("http://jane:p@ssword@google.com", "http", "", "jane", "p@ssword", "google.com", "", "", false, "",
                "", "", "http://jane:p%40ssword@google.com"));
        add(new Row("http://j@ne:password@google.com/p@th?q=@go", "http", "", "j@ne", "password", "google.com", "/p@th",
                "", false, "q=@go", "", "", "http://j%40ne:password@google.com/p@th?q=@go"));
        add(new Row("http://www.google.com/?q=go+language#foo", "http", "", null, null, "www.google.com", "/", "", false,
                "q=go+language", "foo", "", ""));
        add(new Row("http://www.google.com/?q=go+language#foo&bar", "http", "", null, null, "www.google.com", "/", "",
                false, "q=go+language", "foo&bar", "", "http://www.google.com/?q=go+language#foo&bar"));
        add(new Row("http://www.google.com/?q=go+language#foo%26bar", "http", "", null, null, "www.google.com", "/", "",
                false, "q=go+language", "foo&bar", "foo%26bar", "http://www.google.com/?q=go+language#foo%26bar"));
        row("file:///home/adg/rabbits", "file", "", "/home/adg/rabbits", "", "file:///home/adg/rabbits");
        row("file:///C:/FooBar/Baz.txt", "file", "", "/C:/FooBar/Baz.txt", "", "file:///C:/FooBar/Baz.txt");
        add(new Row("MaIlTo:webmaster@golang.org", "mailto", "webmaster@golang.org", null, null, "", "", "", false, "",
                "", "", "mailto:webmaster@golang.org"));
        row("a/b/c", "", "", "a/b/c", "", "a/b/c");
        add(new Row("http://%3Fam:pa%3Fsword@google.com", "http", "", "?am", "pa?sword", "google.com", "", "", false, "",
                "", "", ""));
        row("http://192.168.0.1/", "http", "192.168.0.1", "/", "", "");
        row("http://192.168.0.1:8080/", "http", "192.168.0.1:8080", "/", "", "");
        row("http://[fe80::1]/", "http", "[fe80::1]", "/", "", "");
        row("http://[fe80::1]:8080/", "http", "[fe80::1]:8080", "/", "", "");
        row("http://[fe80::1%25en0]/", "http", "[fe80::1%en0]", "/", "", "");
        row("http://[fe80::1%25en0]:8080/", "http", "[fe80::1%en0]:8080", "/", "", "");
        row("http://[fe80::1%25%65%6e%301-._~]/", "http", "[fe80::1%en01-._~]", "/", "", "http://[fe80::1%25en01-._~]/");
        row("http://[fe80::1%25%65%6e%301-._~]:8080/", "http", "[fe80::1%en01-._~]:8080", "/", "",
                "http://[fe80::1%25en01-._~]:8080/");
        add(new Row("http://rest.rsc.io/foo%2fbar/baz%2Fquux?alt=media", "http", "", null, null, "rest.rsc.io",
                "/foo/bar/baz/quux", "/foo%2fbar/baz%2Fquux", false, "alt=media", "", "", ""));
        row("mysql://a,b,c/bar", "mysql", "a,b,c", "/bar", "", "");
        row("scheme://!$&'()*+,;=hello!:1/path", "scheme", "!$&'()*+,;=hello!:1", "/path", "", "");
        add(new Row("http://host/!$&'()*+,;=:@[hello]", "http", "", null, null, "host", "/!$&'()*+,;=:@[hello]",
                "/!$&'()*+,;=:@[hello]", false, "", "", "", ""));
        add(new Row("http://example.com/oid/[order_id]", "http", "", null, null, "example.com", "/oid/[order_id]",
                "/oid/[order_id]", false, "", "", "", ""));
        row("http://192.168.0.2:8080/foo", "http", "192.168.0.2:8080", "/foo", "", "");
        row("http://192.168.0.2:/foo", "http", "192.168.0.2:", "/foo", "", "");
        row("http://[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:8080/foo", "http",
                "[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:8080", "/foo", "", "");
        row("http://[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:/foo", "http", "[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:",
                "/foo", "", "");
        row("http://hello.世界.com/foo", "http", "hello.世界.com", "/foo", "", "http://hello.%E4%B8%96%E7%95%8C.com/foo");
        row("http://hello.%e4%b8%96%e7%95%8c.com/foo", "http", "hello.世界.com", "/foo", "",
                "http://hello.%E4%B8%96%E7%95%8C.com/foo");
        row("http://hello.%E4%B8%96%E7%95%8C.com/foo", "http", "hello.世界.com", "/foo", "", "");
        row("http://example.com//foo", "http", "example.com", "//foo", "", "");
        row("myscheme://authority<\"hi\">/foo", "myscheme", "authority<\"hi\">", "/foo", "", "");
        row("tcp://[2020::2020:20:2020:2020%25Windows%20Loves%20Spaces]:2020", "tcp",
                "[2020::2020:20:2020:2020%Windows Loves Spaces]:2020", "", "", "");
        row("magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn", "magnet", "", "",
                "xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn",
                "magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn");
        row("mailto:?subject=hi", "mailto", "", "", "subject=hi", "mailto:?subject=hi");
    }

    @Test
    void goesOwnParseTableAndItsRoundTrips() throws Exception {
        assertEquals(56, URLTESTS.size()); // Go's 58 rows, two of which are errors since Go 1.26
        for (Row r : URLTESTS) {
            GoUrl u = GoUrl.parse(r.in());
            String got = List.of(u.scheme, u.opaque, String.valueOf(u.username), String.valueOf(u.password), u.host,
                    u.path, u.rawPath, String.valueOf(u.forceQuery), u.rawQuery, u.fragment, u.rawFragment).toString();
            String want = List.of(r.scheme(), r.opaque(), String.valueOf(r.user()), String.valueOf(r.password()), r.host(),
                    r.path(), r.rawPath(), String.valueOf(r.forceQuery()), r.rawQuery(), r.fragment(), r.rawFragment())
                    .toString();
            assertEquals(want, got, "Parse(" + r.in() + ")");
            assertEquals(r.roundtrip().isEmpty() ? r.in() : r.roundtrip(), u.toString(), "Parse(" + r.in() + ").String()");
        }
    }

    @Test
    void goesParseErrorsAndGo126sStricterHosts() {
        List<String> ok = List.of("http://[::1]", "http://[::1]:80", "http://[::1]/", "http://[::1%25en0]", "http://[::1]:",
                "http://x:", "http://[::1%25%41]", "http://[::1]/%48", "ahttp://foo.com", "cache_object/:foo/bar",
                "http://foo.com/ctl\u0080",
                // Go 1.26: an IPv4-mapped IPv6 address is an IPv6 address
                "http://[::ffff:1.2.3.4]/", "http://[1:2:3:4:5:6:1.2.3.4]:8/");
        List<String> bad = List.of("http://[::1]:namedport", "http://x:namedport", "http://[::1]a", "http://[::1]%23",
                "http://[::1]:%38%30", "http://[%10::1]", "http://%41:8080/", "mysql://x@y(z:123)/foo",
                "mysql://x@y(1.2.3.4:123)/foo", " http://foo.com", "ht tp://foo.com", "1http://foo.com",
                "http://[]%20%48%54%54%50%2f%31%2e%31%0a%4d%79%48%65%61%64%65%72%3a%20%31%32%33%0a%0a/", "http://a b.com/",
                "cache_object://foo", "cache_object:foo", "cache_object:foo/bar",
                // TestInvalidUserPassword, TestRejectControlCharacters
                "http://user^:passwo^rd@foo.com/", "http://foo.com/?foo\nbar", "http\r://foo.com/", "http://foo\u007f.com/",
                // Go 1.26 (urlstrictcolons): a colon in a host not in brackets starts its port
                "http://::1/", "http://localhost:80:80/", "http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080/foo",
                "http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:/foo",
                // Go 1.26.1 (CVE-2026-25679): brackets at the start of a host only, around an IPv6 address only
                "http://a[::1]/", "http://[127.0.0.1]/", "http://[example.com]:80/", "http://[::1::2]/", "http://[fe80::1%25]/",
                "http://[1:2:3:4:5:6:7:8:9]/", "http://[::1:2:3:4:5:6:7:8]/", "http://[12345::1]/");
        for (String in : ok) {
            try {
                GoUrl.parse(in);
            } catch (GoUrl.Invalid e) {
                throw new AssertionError(in + ": " + e.getMessage(), e);
            }
        }
        for (String in : bad) {
            assertThrows(GoUrl.Invalid.class, () -> GoUrl.parse(in), in);
        }
    }

    @Test
    void goesMessages() {
        assertEquals("parse \"http://user^:passwo^rd@foo.com/\": net/url: invalid userinfo",
                assertThrows(GoUrl.Invalid.class, () -> GoUrl.parse("http://user^:passwo^rd@foo.com/")).getMessage());
        assertEquals("parse \"http://foo.com/?foo\\nbar\": net/url: invalid control character in URL",
                assertThrows(GoUrl.Invalid.class, () -> GoUrl.parse("http://foo.com/?foo\nbar")).getMessage());
        assertEquals("parse \"http://x:namedport\": invalid port \":namedport\" after host",
                assertThrows(GoUrl.Invalid.class, () -> GoUrl.parse("http://x:namedport")).getMessage());
        assertEquals("parse \"%zzzzz\": invalid URL escape \"%zz\"",
                assertThrows(GoUrl.Invalid.class, () -> GoUrl.parse("%zzzzz")).getMessage());
        assertEquals("parse \":foo\": missing protocol scheme",
                assertThrows(GoUrl.Invalid.class, () -> GoUrl.parse(":foo")).getMessage());
    }

    @Test
    void goesHostnameTable() {
        String[][] rows = {{"foo.com:80", "foo.com"}, {"foo.com", "foo.com"}, {"foo.com:", "foo.com"},
                {"FOO.COM", "FOO.COM"}, {"1.2.3.4", "1.2.3.4"}, {"1.2.3.4:80", "1.2.3.4"}, {"[1:2:3:4]", "1:2:3:4"},
                {"[1:2:3:4]:80", "1:2:3:4"}, {"[::1]:80", "::1"}, {"[::1]", "::1"}, {"[::1]:", "::1"},
                {"localhost", "localhost"}, {"localhost:443", "localhost"},
                {"some.super.long.domain.example.org:8080", "some.super.long.domain.example.org"},
                {"[2001:0db8:85a3:0000:0000:8a2e:0370:7334]:17000", "2001:0db8:85a3:0000:0000:8a2e:0370:7334"},
                {"[2001:0db8:85a3:0000:0000:8a2e:0370:7334]", "2001:0db8:85a3:0000:0000:8a2e:0370:7334"},
                {"[google.com]:80", "google.com"}, {"google.com]:80", "google.com]"},
                {"google.com:80_invalid_port", "google.com:80_invalid_port"}, {"[::1]extra]:80", "::1]extra"},
                {"google.com]extra:extra", "google.com]extra:extra"}};
        for (String[] r : rows) {
            assertEquals(r[1], GoUrl.of("", "", null, null, r[0], "", "", "").hostname(), r[0]);
        }
    }

    @Test
    void goesStringTable() {
        assertEquals("http://www.google.com/search", GoUrl.of("http", "", null, null, "www.google.com", "search", "", "")
                .toString());
        assertEquals("./this:that", GoUrl.of("", "", null, null, "", "this:that", "", "").toString());
        assertEquals("here/this:that", GoUrl.of("", "", null, null, "", "here/this:that", "", "").toString());
        assertEquals("http://www.google.com/this:that", GoUrl.of("http", "", null, null, "www.google.com", "this:that",
                "", "").toString());
    }

    private static String run(String template) throws TemplateException {
        return GoTemplate.parse(template).execute(Map.of());
    }

    /** Sprig's url_test.go: urlTests (urlParse of each, and urlJoin of each dict back), and TestUrlJoin's templates. */
    @Test
    void sprigsOwnTests() throws Exception {
        String[][] urlTests = {
                // url, fragment, host, hostname, opaque, path, query, scheme, userinfo
                {"proto://auth@host:80/path?query#fragment", "fragment", "host:80", "host", "", "/path", "query", "proto", "auth"},
                {"proto://host:80/path", "", "host:80", "host", "", "/path", "", "proto", ""},
                {"something", "", "", "", "", "something", "", "", ""},
                {"proto://user:passwor%20d@host:80/path", "", "host:80", "host", "", "/path", "", "proto", "user:passwor%20d"},
                {"proto://host:80/pa%20th?key=val%20ue", "", "host:80", "host", "", "/pa th", "key=val%20ue", "proto", ""}};
        String[] keys = {"fragment", "host", "hostname", "opaque", "path", "query", "scheme", "userinfo"};
        for (String[] t : urlTests) {
            StringBuilder parsed = new StringBuilder();
            StringBuilder dict = new StringBuilder("dict");
            for (int k = 0; k < keys.length; k++) {
                parsed.append("{{ index $u \"").append(keys[k]).append("\" }}|");
                dict.append(" \"").append(keys[k]).append("\" \"").append(t[k + 1]).append('"');
            }
            assertEquals(String.join("|", java.util.Arrays.copyOfRange(t, 1, t.length)) + "|",
                    run("{{ $u := urlParse \"" + t[0] + "\" }}" + parsed), t[0]);
            assertEquals(t[0], run("{{ urlJoin (" + dict + ") }}"), "urlJoin of " + t[0]);
        }
        assertEquals("host:80", run("{{ index ( urlParse \"proto://auth@host:80/path?query#fragment\" ) \"host\" }}"));
        assertEquals("proto://host:80/path?query#fragment", run("{{ urlJoin (dict \"fragment\" \"fragment\" \"host\" "
                + "\"host:80\" \"path\" \"/path\" \"query\" \"query\" \"scheme\" \"proto\") }}"));
        assertEquals("proto://ASDJKJSD@host:80/path#fragment", run("{{ urlJoin (dict \"fragment\" \"fragment\" \"host\" "
                + "\"host:80\" \"path\" \"/path\" \"scheme\" \"proto\" \"userinfo\" \"ASDJKJSD\") }}"));
    }

    @Test
    void errorsAsSprigRaisesThem() {
        TemplateException bad = assertThrows(TemplateException.class, () -> run("{{ urlParse \"http://::1/\" }}"));
        assertTrue(bad.getMessage().contains("error calling urlParse: unable to parse url: parse \"http://::1/\": invalid "
                + "port \"::1\" after host"), bad.getMessage());
        TemplateException kind = assertThrows(TemplateException.class, () -> run("{{ urlJoin (dict \"host\" 80) }}"));
        assertTrue(kind.getMessage().contains("unable to parse host key, must be of type string, but int found"),
                kind.getMessage());
        TemplateException user = assertThrows(TemplateException.class,
                () -> run("{{ urlJoin (dict \"host\" \"h\" \"userinfo\" \"a b\") }}"));
        assertTrue(user.getMessage().contains("unable to parse userinfo in dict: parse \"proto://a b@host\": net/url: "
                + "invalid userinfo"), user.getMessage());
        TemplateException notADict = assertThrows(TemplateException.class, () -> run("{{ urlJoin \"x\" }}"));
        assertTrue(notADict.getMessage().contains("urlJoin"), notADict.getMessage());
    }
}
