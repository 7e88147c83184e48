package io.nodelabeller.template;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sprig's {@code snakecase} and {@code kebabcase} (huandu/xstrings ToSnakeCase and ToKebabCase): xstrings' own test
 * table, TestToSnakeCaseAndToKebabCase in convert_test.go (v1.4.0), kebab-case being the same with '-' for '_', and
 * the examples of both functions' documentation, which v1.5.0 (what Sprig v3.3.0 builds with) keeps unchanged.
 */
class SprigCaseTest {

    /** Input → snake case, as the table has them. */
    private static final Map<String, String> TABLE = new LinkedHashMap<>();

    static {
        String[][] rows = {
                {"HTTPServer", "http_server"}, {"_camelCase", "_camel_case"}, {"NoHTTPS", "no_https"},
                {"Wi_thF", "wi_th_f"}, {"_AnotherTES_TCaseP", "_another_tes_t_case_p"}, {"ALL", "all"},
                {"_HELLO_WORLD_", "_hello_world_"}, {"HELLO_WORLD", "hello_world"}, {"HELLO____WORLD", "hello____world"},
                {"TW", "tw"}, {"_C", "_c"}, {"http2xx", "http_2xx"}, {"HTTP2XX", "http2_xx"},
                {"HTTP20xOK", "http_20x_ok"}, {"HTTP20xStatus", "http_20x_status"}, {"HTTP-20xStatus", "http_20x_status"},
                {"a", "a"}, {"Duration2m3s", "duration_2m3s"}, {"Bld4Floor3rd", "bld4_floor_3rd"}, {" _-_ ", "_____"},
                {"a1b2c3d", "a_1b2c3d"}, {"A//B%%2c", "a//b%%2c"},
                {"HTTP状态码404/502Error", "http_状态码404/502_error"}, {"中文(字符)", "中文(字符)"},
                {"混合ABCWords与123数字456", "混合_abc_words_与123_数字456"},
                {"  sentence case  ", "__sentence_case__"},
                {" Mixed-hyphen case _and SENTENCE_case and UPPER-case", "_mixed_hyphen_case__and_sentence_case_and_upper_case"},
                {"FROM CamelCase to snake/kebab-case", "from_camel_case_to_snake/kebab_case"},
                {"", ""},
                {"Abc\uFFFDE\uFFFDf\uFFFDd\uFFFD2\uFFFD00z\uFFFDZZ\uFFFDZZ", "abc_\uFFFDe\uFFFDf\uFFFDd_\uFFFD2\uFFFD00z_\uFFFDzz\uFFFDzz"},
                {"\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD", "\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD"},
                {"abc_123_def", "abc_123_def"},
                // the functions' documentation (convert.go)
                {"FirstName", "first_name"}, {"GO_PATH", "go_path"}, {"GO PATH", "go_path"}, {"GO-PATH", "go_path"}};
        for (String[] r : rows) {
            TABLE.put(r[0], r[1]);
        }
    }

    @Test
    void xstringsOwnTable() {
        TABLE.forEach((in, snake) -> {
            assertEquals(snake, CaseWords.snake(in), "snakecase '" + in + "'");
            assertEquals(snake.replace('_', '-'), CaseWords.kebab(in), "kebabcase '" + in + "'");
        });
    }

    /**
     * {@code camelcase}: xstrings v1.5.0's ToPascalCase, its documented samples (convert.go) and Sprig's TestCamelCase
     * (functions_test.go); then what its code does with capitals that follow a capital, a lone letter and connectors.
     */
    @Test
    void camelcaseIsXstringsPascalCase() {
        String[][] rows = {
                {"some_words", "SomeWords"}, {"http_server", "HttpServer"}, {"no_https", "NoHttps"},
                {"_complex__case_", "_Complex_Case_"}, {"some words", "SomeWords"}, {"GOLANG_IS_GREAT", "GolangIsGreat"},
                {"_camel_case", "_CamelCase"}, {"all", "All"},
                {"HTTPServer", "Httpserver"}, {"a", "A"}, {"", ""}, {"_", "__"}, {"x-Y z", "XYZ"}, {"ÉTÉ_été", "ÉtéÉté"}};
        for (String[] r : rows) {
            assertEquals(r[1], CaseWords.pascal(r[0]), "camelcase '" + r[0] + "'");
        }
    }

    @Test
    void inATemplate() throws Exception {
        assertEquals("HttpServer", GoTemplate.parse("{{ camelcase \"http_server\" }}").execute(Map.of()));
        assertEquals("http_server", GoTemplate.parse("{{ snakecase \"HTTPServer\" }}").execute(Map.of()));
        assertEquals("no-https", GoTemplate.parse("{{ \"NoHTTPS\" | kebabcase }}").execute(Map.of()));
        TemplateException e = assertThrows(TemplateException.class,
                () -> GoTemplate.parse("{{ snakecase 1 }}").execute(Map.of()));
        assertTrue(e.getMessage().contains("snakecase"), e.getMessage());
    }
}
