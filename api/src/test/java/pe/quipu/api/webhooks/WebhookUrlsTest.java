package pe.quipu.api.webhooks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.webhooks.WebhookUrls.Check;
import pe.quipu.api.webhooks.WebhookUrls.Check.Accepted;
import pe.quipu.api.webhooks.WebhookUrls.Check.Refused;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The webhook URL rules, with DNS replaced by a map that records what it was asked. */
class WebhookUrlsTest {

    private static final String HTTP_REFUSED =
            "http:// URLs are accepted only in development (webhooks.allowHttp); use https://";

    private final MapResolver resolver = new MapResolver()
            .answer("hooks.example.com", "93.184.215.14")
            .answer("internal.example.com", "10.1.2.3")
            .answer("mixed.example.com", "93.184.215.14", "127.0.0.1")
            .answer("v6-internal.example.com", "2606:4700:4700::1111", "fd00::1")
            .answer("dual.example.com", "2606:4700:4700::1111", "93.184.215.14")
            .answer("localhost", "127.0.0.1", "::1")
            .answer("empty.example.com")
            .answer("xn--bcher-kva.example", "93.184.215.15");
    private final WebhookUrls urls = new WebhookUrls(false, new AddressRules(false), resolver);

    // Rule 1: an absolute URI of at most 2048 characters, without whitespace or control characters.

    @Test
    void a_url_of_2048_characters_is_accepted_and_one_of_2049_is_refused() {
        String base = "https://hooks.example.com/";
        String longest = base + "a".repeat(2048 - base.length());
        assertThat(longest).hasSize(2048);
        assertThat(accepted(urls.check(longest)).uri().toString()).isEqualTo(longest);
        assertThat(refusal(urls.check(longest + "a")))
                .isEqualTo("the URL is 2049 characters long; at most 2048 are accepted");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {
            " https://hooks.example.com/", "https://hooks.example.com/a b", "https://hooks.example.com/\n",
            "https://hooks.example.com/\t", "https://hooks.example.com/\u00a0", "https://hooks.example.com/\u0000",
            "https://hooks.example.com/\u2028"})
    void whitespace_and_control_characters_are_refused(String url) {
        assertThat(refusal(urls.check(url))).isEqualTo("the URL contains whitespace or control characters");
        assertThat(resolver.calls).isEmpty();
    }

    @Test
    void what_does_not_parse_as_a_uri_is_refused() {
        assertThat(refusal(urls.check("https://hooks.example.com/a|b"))).startsWith("the URL is not a valid URI: ");
        assertThat(refusal(urls.check("https://[v1.x]/"))).startsWith("the URL is not a valid URI: ");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"/hooks", "hooks.example.com/hooks", "//hooks.example.com/hooks"})
    void relative_urls_are_refused(String url) {
        assertThat(refusal(urls.check(url))).isEqualTo("the URL must be absolute, starting with https://");
    }

    @Test
    void an_empty_url_is_refused() {
        assertThat(refusal(urls.check(""))).isEqualTo("a webhook URL is required");
        assertThat(refusal(urls.check(null))).isEqualTo("a webhook URL is required");
    }

    // Rule 2: https, or http in development only.

    @Test
    void http_is_refused_unless_allowed() {
        assertThat(refusal(urls.check("http://hooks.example.com/"))).isEqualTo(HTTP_REFUSED);
        assertThat(refusal(urls.check("HTTP://hooks.example.com/"))).isEqualTo(HTTP_REFUSED);

        WebhookUrls development = new WebhookUrls(true, new AddressRules(false), resolver);
        Accepted http = accepted(development.check("http://hooks.example.com/"));
        assertThat(http.uri()).isEqualTo(URI.create("http://hooks.example.com/"));
        assertThat(http.port()).isEqualTo(80);
        assertThat(accepted(development.check("https://hooks.example.com/")).port()).isEqualTo(443);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', textBlock = """
            ftp://hooks.example.com/        | ftp
            file:///etc/passwd              | file
            gopher://hooks.example.com/     | gopher
            ws://hooks.example.com/         | ws
            javascript:alert(1)             | javascript
            mailto:ops@hooks.example.com    | mailto
            """)
    void other_schemes_are_refused(String url, String scheme) {
        assertThat(refusal(urls.check(url))).isEqualTo("the URL scheme " + scheme + ": is not accepted; use https://");
        assertThat(refusal(new WebhookUrls(true, new AddressRules(false), resolver).check(url)))
                .isEqualTo("the URL scheme " + scheme + ": is not accepted; use https://");
    }

    // Rule 3: no user info, a host, no fragment.

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {
            "https://user:pw@hooks.example.com/", "https://user@hooks.example.com/", "https://:pw@hooks.example.com/",
            "https://@hooks.example.com/", "https://hooks.example.com@127.0.0.1/"})
    void user_info_is_refused(String url) {
        assertThat(refusal(urls.check(url)))
                .isEqualTo("the URL must not contain a user name or password; put credentials elsewhere");
        assertThat(resolver.calls).isEmpty();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', textBlock = """
            https:///path      | https
            https:path         | https
            https://:443/path  | https
            http:///path       | http
            """)
    void a_host_is_required(String url, String scheme) {
        WebhookUrls development = new WebhookUrls(true, new AddressRules(false), resolver);
        assertThat(refusal(development.check(url)))
                .isEqualTo("the URL has no host; write it as " + scheme + "://host/path");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"https://hooks.example.com/#frag", "https://hooks.example.com/#", "https://hooks.example.com#x"})
    void a_fragment_is_refused(String url) {
        assertThat(refusal(urls.check(url))).isEqualTo("the URL must not contain a fragment (#...)");
    }

    // Rule 4: the port.

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {
            "https://hooks.example.com:0/", "https://hooks.example.com:65536/", "https://hooks.example.com:99999/",
            "https://hooks.example.com:443443/", "https://hooks.example.com:/", "https://hooks.example.com:http/",
            "https://hooks.example.com:-1/", "https://[2606:4700:4700::1111]:0/"})
    void a_port_outside_1_to_65535_is_refused(String url) {
        assertThat(refusal(urls.check(url))).isEqualTo("the URL port must be a number from 1 to 65535");
    }

    @ParameterizedTest(name = "[{index}] {0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            https://hooks.example.com/            | 443
            https://hooks.example.com:1/          | 1
            https://hooks.example.com:443/        | 443
            https://hooks.example.com:65535/      | 65535
            https://hooks.example.com:8443/x?y=1  | 8443
            """)
    void the_effective_port_is_the_explicit_one_or_the_default(String url, int port) {
        assertThat(accepted(urls.check(url)).port()).isEqualTo(port);
    }

    @Test
    void an_accepted_url_carries_the_host_the_port_and_the_pinned_address() {
        Accepted accepted = accepted(urls.check("https://hooks.example.com:8443/x?y=1"));
        assertThat(accepted).isEqualTo(new Accepted(URI.create("https://hooks.example.com:8443/x?y=1"),
                "hooks.example.com", 8443, address("93.184.215.14")));
        assertThat(resolver.calls).containsExactly("hooks.example.com");
    }

    // Rule 5: numeric hosts. Forms resolvers read as another IPv4 address are refused; literals are judged, no DNS.

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', textBlock = """
            https://2130706433/          | 2130706433           | 127.0.0.1
            https://0x7f000001/          | 0x7f000001           | 127.0.0.1
            https://0X7F000001/          | 0x7f000001           | 127.0.0.1
            https://0177.0.0.1/          | 0177.0.0.1           | 127.0.0.1
            https://127.1/               | 127.1                | 127.0.0.1
            https://127.0.1/             | 127.0.1              | 127.0.0.1
            https://0x7f.0.0.1/          | 0x7f.0.0.1           | 127.0.0.1
            https://017700000001/        | 017700000001         | 127.0.0.1
            https://127.0.0.01/          | 127.0.0.01           | 127.0.0.1
            https://0x7f.1/              | 0x7f.1               | 127.0.0.1
            https://127.0.0.1./          | 127.0.0.1.           | 127.0.0.1
            https://2130706433./         | 2130706433.          | 127.0.0.1
            https://0xa9fea9fe/latest    | 0xa9fea9fe           | 169.254.169.254
            https://0x08080808/          | 0x08080808           | 8.8.8.8
            https://134744072:8443/      | 134744072            | 8.8.8.8
            https://0/                   | 0                    | 0.0.0.0
            https://0x/                  | 0x                   | 0.0.0.0
            """)
    void numeric_forms_other_than_dotted_decimal_are_refused_naming_the_address_they_mean(
            String url, String host, String meant) {
        assertThat(refusal(urls.check(url))).isEqualTo("the host " + host + " is read by resolvers as " + meant
                + "; write an IPv4 address in dotted-decimal form");
        assertThat(refusal(new WebhookUrls(false, new AddressRules(true), resolver).check(url)))
                .as("refused even where private networks are allowed").contains("is read by resolvers as");
        assertThat(resolver.calls).isEmpty();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', textBlock = """
            https://1.2.3.256/           | 1.2.3.256
            https://1.2.3.4.5/           | 1.2.3.4.5
            https://08.8.8.8/            | 08.8.8.8
            https://4294967296/          | 4294967296
            https://0x100000000/         | 0x100000000
            https://256.0.0.1/           | 256.0.0.1
            https://1.16777216/          | 1.16777216
            https://hooks.2130706433/    | hooks.2130706433
            https://example.com.0x7f/    | example.com.0x7f
            """)
    void numeric_looking_hosts_no_resolver_reads_are_refused_too(String url, String host) {
        assertThat(refusal(urls.check(url))).isEqualTo("the host " + host
                + " looks like a numeric IPv4 address but is not one; write an IPv4 address in dotted-decimal form");
        assertThat(resolver.calls).isEmpty();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', textBlock = """
            https://127.0.0.1/                          | the host 127.0.0.1 is not a public address: 127.0.0.1 is in 127.0.0.0/8 (loopback)
            https://10.1.2.3:8443/                      | the host 10.1.2.3 is not a public address: 10.1.2.3 is in 10.0.0.0/8 (private network)
            https://169.254.169.254/latest/meta-data    | the host 169.254.169.254 is not a public address: 169.254.169.254 is in 169.254.169.254/32 (cloud metadata address)
            https://0.0.0.0/                            | 0.0.0.0 is in 0.0.0.0/8 (this network)
            https://[::1]/                              | the host [::1] is not a public address: ::1 is in ::1/128 (loopback)
            https://[0:0:0:0:0:0:0:1]/                  | ::1 is in ::1/128 (loopback)
            https://[::ffff:127.0.0.1]/                 | the host [::ffff:127.0.0.1] is not a public address: 127.0.0.1 is in 127.0.0.0/8 (loopback)
            https://[::ffff:7f00:1]/                    | 127.0.0.1 is in 127.0.0.0/8 (loopback)
            https://[64:ff9b::7f00:1]/                  | 64:ff9b::7f00:1 is in 64:ff9b::/96 (NAT64) and carries 127.0.0.1, which is in 127.0.0.0/8 (loopback)
            https://[64:ff9b::169.254.169.254]/         | which is in 169.254.169.254/32 (cloud metadata address)
            https://[2002:7f00:1::1]/                   | 2002::/16 (6to4) and carries 127.0.0.1
            https://[FD00::1]:8443/                     | the host [fd00::1] is not a public address: fd00::1 is in fc00::/7 (unique local)
            https://[fe80::1%25eth0]/                   | the IPv6 address [fe80::1%25eth0] has a zone id; zone ids are not accepted
            https://[2606:4700:4700::1111%25eth0]/      | has a zone id; zone ids are not accepted
            https://１２７.０.０.１/                      | the host 127.0.0.1 is not a public address: 127.0.0.1 is in 127.0.0.0/8 (loopback)
            """)
    void literals_are_judged_by_the_address_rules_without_dns(String url, String reason) {
        assertThat(refusal(urls.check(url))).contains(reason);
        assertThat(resolver.calls).isEmpty();
    }

    @Test
    void public_literals_are_accepted_without_dns() {
        assertThat(urls.check("https://8.8.8.8/hook")).isEqualTo(
                new Accepted(URI.create("https://8.8.8.8/hook"), "8.8.8.8", 443, address("8.8.8.8")));
        assertThat(urls.check("https://[2606:4700:4700::1111]:8443/x")).isEqualTo(new Accepted(
                URI.create("https://[2606:4700:4700::1111]:8443/x"), "2606:4700:4700::1111", 8443,
                address("2606:4700:4700::1111")));
        assertThat(urls.check("https://[2606:4700:4700::ABCD]/")).isEqualTo(new Accepted(
                URI.create("https://[2606:4700:4700::abcd]/"), "2606:4700:4700::abcd", 443,
                address("2606:4700:4700::abcd")));
        assertThat(accepted(urls.check("https://[64:ff9b::808:808]/")).pinned()).isEqualTo(address("64:ff9b::808:808"));
        assertThat(accepted(urls.check("https://[::ffff:8.8.8.8]/")).pinned()).isEqualTo(address("8.8.8.8"));
        assertThat(resolver.calls).isEmpty();
    }

    @Test
    void private_literals_are_accepted_where_private_networks_are_allowed() {
        WebhookUrls local = new WebhookUrls(true, new AddressRules(true), resolver);
        assertThat(local.check("http://127.0.0.1:8080/hook")).isEqualTo(
                new Accepted(URI.create("http://127.0.0.1:8080/hook"), "127.0.0.1", 8080, address("127.0.0.1")));
        assertThat(accepted(local.check("http://[::1]:8080/hook")).host()).isEqualTo("::1");
        assertThat(resolver.calls).isEmpty();
    }

    // Rule 6: names are resolved, and every address must be public.

    @Test
    void a_host_that_does_not_resolve_is_refused() {
        assertThat(refusal(urls.check("https://nowhere.example.com/")))
                .isEqualTo("the host nowhere.example.com does not resolve");
        assertThat(refusal(urls.check("https://empty.example.com/")))
                .isEqualTo("the host empty.example.com does not resolve");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', textBlock = """
            https://internal.example.com/     | internal.example.com
            https://mixed.example.com/        | mixed.example.com
            https://v6-internal.example.com/  | v6-internal.example.com
            https://LOCALHOST:8080/           | localhost
            """)
    void a_host_with_any_non_public_address_is_refused_without_naming_the_address(String url, String host) {
        assertThat(refusal(urls.check(url))).isEqualTo("the host " + host + " resolves to a non-public address; "
                + "webhooks are delivered to public addresses only");
    }

    @Test
    void the_pinned_address_is_the_resolvers_first() {
        assertThat(accepted(urls.check("https://dual.example.com/")).pinned())
                .isEqualTo(address("2606:4700:4700::1111"));
    }

    @Test
    void every_check_resolves_again_so_a_rebound_name_is_refused() {
        resolver.answer("rebind.example.com", "93.184.215.14");
        assertThat(accepted(urls.check("https://rebind.example.com/")).pinned()).isEqualTo(address("93.184.215.14"));

        resolver.answer("rebind.example.com", "169.254.169.254");
        assertThat(refusal(urls.check("https://rebind.example.com/"))).isEqualTo("the host rebind.example.com "
                + "resolves to a non-public address; webhooks are delivered to public addresses only");
        assertThat(resolver.calls).containsExactly("rebind.example.com", "rebind.example.com");
    }

    @Test
    void names_resolving_to_private_addresses_are_accepted_where_private_networks_are_allowed() {
        WebhookUrls local = new WebhookUrls(false, new AddressRules(true), resolver);
        assertThat(accepted(local.check("https://internal.example.com/")).pinned()).isEqualTo(address("10.1.2.3"));
    }

    @Test
    void an_idn_host_is_resolved_in_its_ascii_form() {
        Accepted accepted = accepted(urls.check("https://bücher.example/"));
        assertThat(accepted).isEqualTo(new Accepted(URI.create("https://xn--bcher-kva.example/"),
                "xn--bcher-kva.example", 443, address("93.184.215.15")));
        assertThat(accepted.uri().getHost()).isEqualTo("xn--bcher-kva.example");
        assertThat(resolver.calls).containsExactly("xn--bcher-kva.example");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', textBlock = """
            https://under_score.example.com/  | the host under_score.example.com is not a valid host name
            https://-dash.example.com/        | the host -dash.example.com is not a valid host name
            https://a..example.com/           | the host a..example.com is not a valid host name
            https://host.123abc/              | the host host.123abc is not a valid host name
            https://%31%32%37.0.0.1/          | the host %31%32%37.0.0.1 contains percent-encoding; write the host name as it is
            """)
    void hosts_that_are_not_host_names_are_refused(String url, String reason) {
        assertThat(refusal(urls.check(url))).startsWith(reason);
        assertThat(resolver.calls).isEmpty();
    }

    // Rule 7: the normalised URI.

    @Test
    void scheme_and_host_are_lower_cased_and_the_rest_kept_as_given() {
        Accepted accepted = accepted(urls.check("HTTPS://Hooks.Example.COM/a"));
        assertThat(accepted.uri()).isEqualTo(URI.create("https://hooks.example.com/a"));
        assertThat(accepted.host()).isEqualTo("hooks.example.com");
        assertThat(resolver.calls).containsExactly("hooks.example.com");

        assertThat(accepted(urls.check("Https://HOOKS.example.com:443/Path/%7Eme?Q=A%20B&x")).uri().toString())
                .isEqualTo("https://hooks.example.com:443/Path/%7Eme?Q=A%20B&x");
        assertThat(accepted(urls.check("https://hooks.example.com")).uri().toString())
                .isEqualTo("https://hooks.example.com");
    }

    private static String refusal(Check check) {
        assertThat(check).isInstanceOf(Refused.class);
        return ((Refused) check).reason().english();
    }

    private static Accepted accepted(Check check) {
        assertThat(check).isInstanceOf(Accepted.class);
        return (Accepted) check;
    }

    private static InetAddress address(String literal) {
        return InetAddress.ofLiteral(literal);
    }

    /** Answers from a map (a name it does not hold does not resolve) and records every name it is asked. */
    private static final class MapResolver implements WebhookUrls.Resolver {
        private final Map<String, List<InetAddress>> answers = new HashMap<>();
        private final List<String> calls = new ArrayList<>();

        MapResolver answer(String host, String... addresses) {
            answers.put(host, Arrays.stream(addresses).map(WebhookUrlsTest::address).toList());
            return this;
        }

        @Override
        public List<InetAddress> resolve(String host) throws UnknownHostException {
            calls.add(host);
            List<InetAddress> found = answers.get(host);
            if (found == null) {
                throw new UnknownHostException(host);
            }
            return found;
        }
    }
}
