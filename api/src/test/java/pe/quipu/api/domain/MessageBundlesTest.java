package pe.quipu.api.domain;

import org.junit.jupiter.api.Test;
import pe.quipu.api.http.ProblemType;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules of the message bundles (issue: Spanish Problems): every area's English bundle has a Spanish twin with the
 * same keys and the same placeholders, every key belongs to its area, the Spanish words are not the English ones, and
 * every key the code names exists.
 */
class MessageBundlesTest {

    private static final Path RESOURCES = Path.of("src/main/resources/pe/quipu/api");
    private static final Path SOURCES = Path.of("src/main/java/pe/quipu/api");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{(\\d{1,2})}");
    /**
     * Words that are the same in both languages: JSON's literal, the proper names of address ranges, a unit symbol.
     * (Patterns of arguments and punctuation only are the same too.)
     */
    private static final Set<String> SAME_IN_BOTH = Set.of("null", "NAT64", "Teredo", "6to4", "{0} ms");
    /** Literals shaped like a key, in a file that speaks in messages, that are names of another kind. */
    private static final Set<String> NOT_KEYS = Set.of("ruc.changed");

    @Test
    void every_area_has_both_languages_with_the_same_keys_and_placeholders() throws IOException {
        List<String> areas = areas();
        assertThat(areas).contains("domain", "http", "ruc");
        for (String area : areas) {
            Properties english = load(RESOURCES.resolve(area).resolve("messages.properties"));
            Path spanishFile = RESOURCES.resolve(area).resolve("messages_es.properties");
            assertThat(spanishFile).as("the Spanish bundle of %s", area).exists();
            Properties spanish = load(spanishFile);
            assertThat(new TreeSet<>(spanish.stringPropertyNames())).as("keys of %s in Spanish", area)
                    .isEqualTo(new TreeSet<>(english.stringPropertyNames()));
            for (String key : english.stringPropertyNames()) {
                assertThat(key).as("a key of %s", area).startsWith(area + ".").matches("[a-z0-9_.]+");
                String en = english.getProperty(key);
                String es = spanish.getProperty(key);
                assertThat(placeholders(es)).as("placeholders of %s in Spanish", key).isEqualTo(placeholders(en));
                List<Integer> indexes = new ArrayList<>(placeholders(en));
                for (int i = 0; i < indexes.size(); i++) {
                    assertThat(indexes.get(i)).as("placeholders of %s are {0}..{n} without gaps", key).isEqualTo(i);
                }
                assertThat(en).as("%s in English", key).isNotBlank();
                if (!SAME_IN_BOTH.contains(en) && en.replaceAll(PLACEHOLDER.pattern(), "").matches(".*\\p{L}.*")) {
                    assertThat(es).as("%s in Spanish is not the English words", key).isNotEqualTo(en);
                }
            }
        }
    }

    @Test
    void every_key_the_code_names_exists() throws IOException {
        List<String> areas = areas();
        Pattern literal = Pattern.compile("\"((?:" + String.join("|", areas) + ")\\.[a-z0-9_.]*[a-z0-9_])\"");
        TreeMap<String, String> missing = new TreeMap<>();
        int named = 0;
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String source = Files.readString(file);
                if (!source.contains("Text")) {
                    continue; // a file that says no message: its dotted literals are tables, events, metrics
                }
                Matcher m = literal.matcher(source);
                while (m.find()) {
                    String key = m.group(1);
                    if (NOT_KEYS.contains(key)) {
                        continue;
                    }
                    named++;
                    String area = key.substring(0, key.indexOf('.'));
                    if (!load(RESOURCES.resolve(area).resolve("messages.properties")).containsKey(key)) {
                        missing.put(key, SOURCES.relativize(file).toString());
                    }
                }
            }
        }
        assertThat(named).isGreaterThan(100);
        assertThat(missing).as("keys named in code but in no bundle").isEmpty();
    }

    @Test
    void every_problem_type_has_a_title_in_both_languages() {
        for (ProblemType type : ProblemType.values()) {
            for (Language language : Language.values()) {
                assertThat(type.title().in(language)).as("%s in %s", type, language).isNotBlank();
            }
            assertThat(type.title().in(Language.SPANISH)).isNotEqualTo(type.title().in(Language.ENGLISH));
        }
    }

    private static List<String> areas() throws IOException {
        try (Stream<Path> dirs = Files.list(RESOURCES)) {
            return dirs.filter(d -> Files.exists(d.resolve("messages.properties")))
                    .map(d -> d.getFileName().toString()).sorted().toList();
        }
    }

    private static Properties load(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        }
        return properties;
    }

    private static Set<Integer> placeholders(String pattern) {
        Set<Integer> found = new TreeSet<>();
        Matcher m = PLACEHOLDER.matcher(pattern);
        while (m.find()) {
            found.add(Integer.parseInt(m.group(1)));
        }
        return found;
    }
}
