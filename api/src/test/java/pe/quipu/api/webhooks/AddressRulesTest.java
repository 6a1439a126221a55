package pe.quipu.api.webhooks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.domain.Text;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Which addresses webhooks may be delivered to: public unicast only (SSRF). Literals only, never DNS. */
class AddressRulesTest {

    private final AddressRules rules = new AddressRules(false);

    @ParameterizedTest(name = "{0} is refused: {1}")
    @CsvSource(delimiter = '|', textBlock = """
            127.0.0.1             | 127.0.0.0/8 (loopback)
            127.255.255.255       | 127.0.0.0/8 (loopback)
            10.0.0.0              | 10.0.0.0/8 (private network)
            10.255.255.255        | 10.0.0.0/8 (private network)
            172.16.0.1            | 172.16.0.0/12 (private network)
            172.31.255.255        | 172.16.0.0/12 (private network)
            192.168.0.0           | 192.168.0.0/16 (private network)
            192.168.1.1           | 192.168.0.0/16 (private network)
            192.168.255.255       | 192.168.0.0/16 (private network)
            169.254.169.254       | 169.254.169.254/32 (cloud metadata address)
            169.254.0.1           | 169.254.0.0/16 (link-local)
            169.254.255.255       | 169.254.0.0/16 (link-local)
            0.0.0.0               | 0.0.0.0/8 (this network)
            0.255.255.255         | 0.0.0.0/8 (this network)
            100.64.0.1            | 100.64.0.0/10 (shared address space, carrier-grade NAT)
            100.127.255.255       | 100.64.0.0/10 (shared address space, carrier-grade NAT)
            192.0.0.8             | 192.0.0.0/24 (IETF protocol assignments)
            192.0.0.255           | 192.0.0.0/24 (IETF protocol assignments)
            192.0.2.1             | 192.0.2.0/24 (documentation)
            198.18.0.1            | 198.18.0.0/15 (benchmarking)
            198.19.255.255        | 198.18.0.0/15 (benchmarking)
            198.51.100.7          | 198.51.100.0/24 (documentation)
            203.0.113.9           | 203.0.113.0/24 (documentation)
            224.0.0.1             | 224.0.0.0/4 (multicast)
            239.255.255.255       | 224.0.0.0/4 (multicast)
            240.0.0.1             | 240.0.0.0/4 (reserved, including broadcast)
            255.255.255.255       | 240.0.0.0/4 (reserved, including broadcast)
            ::                    | ::/128 (unspecified)
            ::1                   | ::1/128 (loopback)
            ::ffff:127.0.0.1      | 127.0.0.0/8 (loopback)
            ::ffff:10.0.0.1       | 10.0.0.0/8 (private network)
            ::ffff:169.254.169.254 | 169.254.169.254/32 (cloud metadata address)
            ::127.0.0.1           | ::/96 (IPv4-compatible, deprecated)
            ::8.8.8.8             | ::/96 (IPv4-compatible, deprecated)
            64:ff9b::7f00:1       | 64:ff9b::/96 (NAT64) and carries 127.0.0.1, which is in 127.0.0.0/8 (loopback)
            64:ff9b::a00:1        | 64:ff9b::/96 (NAT64) and carries 10.0.0.1, which is in 10.0.0.0/8 (private network)
            64:ff9b::a9fe:a9fe    | carries 169.254.169.254, which is in 169.254.169.254/32 (cloud metadata address)
            64:ff9b:1::808:808    | 64:ff9b:1::/48 (local-use NAT64)
            2002:7f00:1::1        | 2002::/16 (6to4) and carries 127.0.0.1, which is in 127.0.0.0/8 (loopback)
            2002:c0a8:101::1      | 2002::/16 (6to4) and carries 192.168.1.1, which is in 192.168.0.0/16 (private network)
            2001::1               | 2001::/32 (Teredo)
            2001:0:ffff:ffff:ffff:ffff:ffff:ffff | 2001::/32 (Teredo)
            2001:db8::1           | 2001:db8::/32 (documentation)
            2001:2::1             | 2001:2::/48 (benchmarking)
            3fff::1               | 3fff::/20 (documentation)
            100::1                | 100::/64 (discard-only)
            fc00::1               | fc00::/7 (unique local)
            fd12:3456::1          | fc00::/7 (unique local)
            fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff | fc00::/7 (unique local)
            fe80::1               | fe80::/10 (link-local)
            febf::1               | fe80::/10 (link-local)
            fec0::1               | fec0::/10 (site-local, deprecated)
            ff02::1               | ff00::/8 (multicast)
            ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff | ff00::/8 (multicast)
            5f00::1               | 2000::/3 (not global unicast)
            4000::1               | 2000::/3 (not global unicast)
            """)
    void non_public_addresses_are_refused_naming_the_range(String address, String range) {
        assertThat(why(literal(address))).hasValueSatisfying(why -> assertThat(why).contains(range));
    }

    @ParameterizedTest(name = "{0} is accepted")
    @ValueSource(strings = {
            "172.15.255.255", "172.32.0.0", "100.63.255.255", "100.128.0.0", "198.17.255.255", "198.20.0.0",
            "169.253.255.255", "169.255.0.0", "9.255.255.255", "11.0.0.1", "126.255.255.255", "128.0.0.0",
            "192.167.255.255", "192.169.0.0", "192.0.1.255", "192.0.3.0", "198.51.99.255", "203.0.114.0",
            "8.8.8.8", "1.1.1.1", "93.184.215.14", "223.255.255.255",
            "2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001:82b::200e", "2001:db9::1",
            "64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8"})
    void public_unicast_addresses_are_accepted(String address) {
        assertThat(why(literal(address))).isEmpty();
    }

    @Test
    void the_reason_names_the_address_and_the_range() {
        assertThat(why(literal("127.0.0.1"))).hasValue("127.0.0.1 is in 127.0.0.0/8 (loopback)");
        assertThat(why(literal("169.254.169.254")))
                .hasValue("169.254.169.254 is in 169.254.169.254/32 (cloud metadata address)");
        assertThat(why(literal("fe80:0:0:0:0:0:0:1"))).hasValue("fe80::1 is in fe80::/10 (link-local)");
        assertThat(why(literal("2001:DB8:0:0:1:0:0:1")))
                .hasValue("2001:db8::1:0:0:1 is in 2001:db8::/32 (documentation)");
        assertThat(why(literal("64:ff9b::7f00:1"))).hasValue(
                "64:ff9b::7f00:1 is in 64:ff9b::/96 (NAT64) and carries 127.0.0.1, which is in 127.0.0.0/8 (loopback)");
    }

    /** Parsing or resolving ::ffff:a.b.c.d gives an Inet4Address, but one built from bytes stays IPv6. */
    @Test
    void an_ipv4_mapped_address_kept_as_ipv6_is_judged_by_its_ipv4_address() throws UnknownHostException {
        InetAddress loopback = Inet6Address.getByAddress(null, mapped(127, 0, 0, 1), -1);
        assertThat(loopback).isInstanceOf(Inet6Address.class);
        assertThat(why(loopback)).hasValue("::ffff:127.0.0.1 is in ::ffff:0:0/96 (IPv4-mapped) and carries "
                + "127.0.0.1, which is in 127.0.0.0/8 (loopback)");

        InetAddress metadata = Inet6Address.getByAddress(null, mapped(169, 254, 169, 254), -1);
        assertThat(why(metadata)).hasValueSatisfying(why -> assertThat(why).contains("cloud metadata"));

        InetAddress google = Inet6Address.getByAddress(null, mapped(8, 8, 8, 8), -1);
        assertThat(google).isInstanceOf(Inet6Address.class);
        assertThat(why(google)).isEmpty();
    }

    @ParameterizedTest(name = "{0} is accepted when private networks are allowed")
    @ValueSource(strings = {"127.0.0.1", "::1", "10.1.2.3", "169.254.169.254", "fd00::1", "::ffff:127.0.0.1"})
    void allowing_private_networks_lifts_the_rule(String address) {
        assertThat(new AddressRules(true).refusal(literal(address))).isEmpty();
    }

    /** The refusal's English words. */
    private Optional<String> why(InetAddress address) {
        return rules.refusal(address).map(Text::english);
    }

    private static InetAddress literal(String address) {
        return InetAddress.ofLiteral(address); // never a DNS lookup
    }

    private static byte[] mapped(int a, int b, int c, int d) {
        return new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) a, (byte) b, (byte) c,
                (byte) d};
    }
}
