package io.nodelabeller.template;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Sprig v3.3.0 functions beyond the common ones, each against the result Sprig's code gives (strings.go,
 * list.go, dict.go, numeric.go, defaults.go, reflect.go, regex.go and the goutils / Go standard library functions
 * they call: strings.Title, path.Clean, regexp.Split, encoding/json, base32). The data is a rule's matched elements as
 * NFD gives them to a template ({@code map[string]string}).
 */
class SprigFunctionsTest {

    private static final Map<String, Object> DATA = Map.of("pci", Map.of("device",
            List.of(Map.of("class", "0302", "vendor", "10de"), Map.of("class", "0200", "vendor", "15b3"))));

    private static String run(String template) throws TemplateException {
        return GoTemplate.parse(template).execute(DATA);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {{ hello }}                                              | Hello!
            {{ title "hello wörld-x_y a.b" }}                          | Hello Wörld-X_y A.B
            {{ untitle "Hello World" }}                              | hello world
            {{ wrap 10 "the quick brown fox jumps" }}                  | `the quick\nbrown fox\njumps`
            {{ wrapWith 5 "\t" "Hello World" }}                       | `Hello\tWorld`
            {{ wrapWith 3 "-" "abcdefgh" }}                           | abc-def-gh
            {{ b32dec "NZ3GSZDJME======" }}                           | nvidia
            {{ swapcase "Hello World 1" }}                           | hELLO wORLD 1
            {{ initials "John  Ronald reuel" }}                      | JRr
            {{ abbrev 5 "hello world" }}                             | he...
            {{ abbrev 3 "hello world" }}                             | hello world
            {{ abbrevboth 5 10 "1234 5678 9123" }}                   | ...5678...
            {{ indent 2 "a\\nb" }}                                    | `  a\n  b`
            {{ plural "GPU" "GPUs" 1 }}-{{ plural "GPU" "GPUs" 8 }}  | GPU-GPUs
            {{ trimall "$" "$5.00$" }}                               | 5.00
            {{ (split "." "5.15.0")._1 }}                            | 15
            {{ (splitn "." 2 "5.15.0")._1 }}                         | 15.0
            {{ toStrings (list 1 "a" nil 2.5) }}                     | [1 a 2.5]
            {{ b64enc "nvidia" }}/{{ b64dec "bnZpZGlh" }}            | bnZpZGlh/nvidia
            {{ b32enc "nvidia" }}                                    | NZ3GSZDJME======
            {{ trunc 12 (sha256sum "a") }}                           | ca978112ca1b
            {{ sha1sum "a" }}                                        | 86f7e437faa5a7fce15d1ddcb9eaeaea377667b8
            {{ adler32sum "Wikipedia" }}                             | 300286872
            {{ float64 "1.5" }} {{ float64 3 }}                      | 1.5 3
            {{ toDecimal "0777" }}                                   | 511
            {{ maxf 1 2.5 "3" }} {{ minf 1 2.5 }}                    | 3 1
            {{ floor 1.7 }} {{ ceil 1.2 }} {{ round 3.14159 2 }}     | 1 2 3.14
            {{ addf 1.1 2.2 }} {{ subf 5 1.5 }} {{ mulf 1.5 2 }}     | 3.3 3.5 3
            {{ divf 10 4 }} {{ add1f 1.5 }}                          | 2.5 2.5
            {{ biggest 1 7 3 }}                                      | 7
            {{ until 3 }} {{ untilStep 10 0 -4 }}                    | [0 1 2] [10 6 2]
            {{ seq 3 }}/{{ seq 2 -1 }}/{{ seq 0 3 9 }}               | 1 2 3/2 1 0 -1/0 3 6 9
            {{ append (list 1 2) 3 }} {{ prepend (list 1 2) 0 }}     | [1 2 3] [0 1 2]
            {{ reverse (list 1 2 3) }} {{ compact (list 0 "" 1 "a") }} | [3 2 1] [1 a]
            {{ without (list 1 2 3 2) 2 }} {{ mustUniq (list 1 1 2) }} | [1 3] [1 2]
            {{ concat (list 1) (list 2 3) }} {{ chunk 2 (list 1 2 3) }} | [1 2 3] [[1 2] [3]]
            {{ mustRest (list) }} {{ mustFirst (list 1 2) }}         | [] 1
            {{ slice (list 1 2 3) 1 }} {{ slice (list 1 2 3) 1 "2" 9 }} {{ slice (list) 5 }} {{ mustSlice (list 1 2) 0 1 }} | [2 3] [2] <no value> [1]
            {{ mustHas 2 (list 1 2) }} {{ mustHas 2 nil }}           | true false
            {{ $d := dict "a" 1 "b" "x" }}{{ keys $d }} {{ get $d "b" }} [{{ get $d "z" }}] | [a b] x []
            {{ $d := dict "a" 1 }}{{ $_ := set $d "c" 3 }}{{ hasKey $d "c" }} {{ unset $d "a" }} | true map[c:3]
            {{ pick (dict "a" 1 "b" 2) "b" }} {{ omit (dict "a" 1 "b" 2) "b" }} | map[b:2] map[a:1]
            {{ pluck "a" (dict "a" 1) (dict "b" 2) (dict "a" 3) }}   | [1 3]
            {{ merge (dict "a" 1 "n" (dict "x" 1)) (dict "a" 2 "b" 3 "n" (dict "y" 2)) }} | map[a:1 b:3 n:map[x:1 y:2]]
            {{ mergeOverwrite (dict "a" 1) (dict "a" 2 "b" 3) }}     | map[a:2 b:3]
            {{ dig "a" "b" "none" (dict "a" (dict "b" "found")) }} {{ dig "a" "z" "none" (dict "a" (dict)) }} | found none
            {{ values (dict "a" 1 "b" 2) }} {{ deepCopy (list 1 (dict "a" 1)) }} | [1 2] [1 map[a:1]]
            {{ all 1 "a" true }} {{ all 1 "" }} {{ any 0 "" 1 }}     | true false true
            {{ deepEqual (list 1 2) (list 1 2) }} {{ deepEqual 1 1.0 }} | true false
            {{ typeOf "a" }} {{ typeOf 1 }} {{ typeOf 1.5 }} {{ kindOf (list) }} {{ kindOf (dict) }} | string int float64 slice map
            {{ typeIs "int" 3 }} {{ kindIs "string" "x" }} {{ typeIsLike "string" "x" }} | true true true
            {{ base "/a/b.tar.gz" }} {{ dir "/a/b/" }} {{ ext "b.tar.gz" }} {{ clean "a/../b//./c/" }} {{ isAbs "/x" }} | b.tar.gz /a/b .gz b/c true
            {{ base "" }} {{ dir "x" }} {{ clean "/../a" }} {{ osBase "/" }} | . . /a /
            {{ regexFindAll "[0-9]+" "a1 b22 c333" -1 }} {{ regexFindAll "[0-9]+" "a1 b22 c333" 2 }} | [1 22 333] [1 22]
            {{ regexSplit "[,;]" "a,b;c" -1 }} {{ regexSplit "[,;]" "a,b;c" 2 }} {{ regexSplit "x*" "abc" -1 }} | [a b c] [a b;c] [a b c]
            {{ regexQuoteMeta "1.5+[x]" }} {{ mustRegexMatch "^a" "abc" }} {{ mustRegexFind "b+" "abbbc" }} | 1\\.5\\+\\[x\\] true bbb
            {{ toJson (dict "b" (list 1 2.5 "<x>") "a" true "n" nil) }} | {"a":true,"b":[1,2.5,"\\u003cx\\u003e"],"n":null}
            {{ toRawJson (dict "s" "<x>" "f" 100000000.0 "e" 0.0000001) }} | {"e":1e-7,"f":100000000,"s":"<x>"}
            {{ (fromJson "{\\"a\\": {\\"b\\": [1, 2]}}").a.b }} {{ fromJson "nope" }} | [1 2] <no value>
            {{ semver "v1.2.3-beta.1+b5" }} {{ (semver "5.15.0-91-generic").Minor }} {{ (semver "550.54").Patch }} | 1.2.3-beta.1+b5 15 0
            {{ semverCompare ">=5.15" "6.8.0" }} {{ semverCompare ">=5.15" "5.4.0" }} {{ semverCompare "^550" "550.54.15" }} | true false true
            {{ semverCompare ">=5.15" "6.8.0-45-generic" }} {{ semverCompare ">=5.15-0" "6.8.0-45-generic" }} | false true
            {{ semverCompare "~1.2" "1.2.9" }} {{ semverCompare "~1.2" "1.3.0" }} {{ semverCompare "1.2.x" "1.2.7" }} | true false true
            `{{ semverCompare "1.2 - 1.4.5" "1.4.5" }} {{ semverCompare "<1.0 || >=2.0" "1.5" }} {{ semverCompare "!=1.2.3" "1.2.3" }}` | true false false
            {{ semverCompare "^0.2.3" "0.2.9" }} {{ semverCompare "^0.2.3" "0.3.0" }} {{ semverCompare ">1.2" "1.2.5" }} {{ semverCompare ">1.2" "1.3.0" }} | true false false true
            """)
    void asSprigGivesIt(String template, String want) throws Exception {
        assertEquals(want.replace("\\n", "\n").replace("\\t", "\t"), run(template));
    }

    /** text/template's html, js, urlquery and call: exec_test.go's execTests rows and TestJSEscaping's table. */
    @Test
    void goEscapersAsTextTemplateHasThem() throws Exception {
        assertEquals("&lt;script&gt;alert(&#34;XSS&#34;);&lt;/script&gt;", run("{{html \"<script>alert(\\\"XSS\\\");</script>\"}}"));
        assertEquals("&lt;script&gt;alert(&#34;XSS&#34;);&lt;/script&gt;",
                run("{{printf \"<script>alert(\\\"XSS\\\");</script>\" | html}}"));
        assertEquals("http%3A%2F%2Fwww.example.org%2F", run("{{\"http://www.example.org/\"|urlquery}}"));
        assertEquals("a+b%26c 1+2", run("{{ urlquery \"a b&c\" }} {{ urlquery 1 2 }}"), "several arguments: fmt.Sprint");
        String[][] js = {{"a", "a"}, {"'foo", "\\'foo"}, {"Go \"jump\" \\", "Go \\\"jump\\\" \\\\"},
            {"Yukihiro says \"今日は世界\"", "Yukihiro says \\\"今日は世界\\\""}, {"unprintable \uFFFE", "unprintable \\uFFFE"},
            {"<html>", "\\u003Chtml\\u003E"}, {"no = in attributes", "no \\u003D in attributes"},
            {"&#x27; does not become HTML entity", "\\u0026#x27; does not become HTML entity"}, {"tab\there", "tab\\u0009here"}};
        for (String[] row : js) {
            assertEquals(row[1], GoTemplate.parse("{{ js .s }}").execute(Map.of("s", row[0])), row[0]);
        }
        TemplateException call = assertThrows(TemplateException.class, () -> run("{{ call \"x\" }}"));
        assertTrue(call.getMessage().contains("non-function of type string"), call.getMessage());
    }

    /** docs/custom-rules.md names every function a template may call. */
    @Test
    void everyFunctionIsDocumented() throws Exception {
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("docs/custom-rules.md"));
        List<String> missing = GoTemplate.functions().stream().sorted()
                .filter(n -> !java.util.regex.Pattern.compile("[\\s`(]" + java.util.regex.Pattern.quote(n) + "[\\s`)]")
                        .matcher(doc).find())
                .toList();
        assertEquals(List.of(), missing);
    }

    @Test
    void prettyJsonIndentsAsMarshalIndent() throws Exception {
        assertEquals("{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}", run("{{ toPrettyJson (dict \"a\" (list 1) \"b\" (dict)) }}"));
    }

    /** A rule's matched elements are map[string]string in NFD: Sprig's dict functions refuse them, as Go does. */
    @Test
    void matchedElementsAreNotDicts() {
        TemplateException e = assertThrows(TemplateException.class, () -> run("{{ keys (index .pci.device 0) }}"));
        assertTrue(e.getMessage().contains("expected map[string]interface {}; got map[string]string"), e.getMessage());
        assertThrows(TemplateException.class, () -> run("{{ abbrev \"5\" \"hello world\" }}"), "an int parameter takes no string");
    }

    @Test
    void randomValuesHaveTheirShape() throws Exception {
        assertTrue(run("{{ randAlphaNum 12 }}").matches("[A-Za-z0-9]{12}"));
        assertTrue(run("{{ randNumeric 5 }}").matches("[0-9]{5}"));
        assertTrue(run("{{ uuidv4 }}").matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
        assertEquals(8, run("{{ randBytes 4 }}").length(), "4 bytes in base64: 8 characters with padding");
        assertEquals("abc", run("{{ shuffle \"cab\" | splitList \"\" | sortAlpha | join \"\" }}"));
    }

    @Test
    void keyAndCertificateFunctionsFailNamingThemselves() {
        for (String fn : List.of("genCA \"x\" 1", "genPrivateKey \"rsa\"", "bcrypt \"x\"", "encryptAES \"k\" \"x\"")) {
            TemplateException e = assertThrows(TemplateException.class, () -> run("{{ " + fn + " }}"));
            assertTrue(e.getMessage().contains(fn.substring(0, fn.indexOf(' ')) + " makes keys"), e.getMessage());
        }
        TemplateException bad = assertThrows(TemplateException.class, () -> run("{{ semverCompare \">=1\" \"x.y\" }}"));
        assertTrue(bad.getMessage().contains("Invalid Semantic Version"), bad.getMessage());
        TemplateException fail = assertThrows(TemplateException.class, () -> run("{{ fail \"no GPU\" }}"));
        assertTrue(fail.getMessage().contains("no GPU"), fail.getMessage());
    }
}
