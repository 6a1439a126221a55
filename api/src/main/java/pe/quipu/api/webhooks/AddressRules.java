package pe.quipu.api.webhooks;

import pe.quipu.api.domain.Text;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Which addresses a webhook may be delivered to: public unicast only, so that a webhook URL cannot make the server
 * reach its own loopback, the private network it runs in, or the cloud metadata service (SSRF).
 *
 * <p>The ranges are an explicit table rather than {@code InetAddress.isXxx} checks: those miss shared address space,
 * the documentation and benchmarking ranges, and every IPv6 form that carries an IPv4 address. IPv6 addresses that
 * embed an IPv4 address a connection would end up at (IPv4-mapped, NAT64, 6to4) are judged by that IPv4 address.
 */
final class AddressRules {

    /** IPv4, first match wins: the metadata address comes before the link-local range that holds it. */
    private static final List<Range> IPV4 = List.of(
            Range.v4("0.0.0.0", 8, "this_network"),
            Range.v4("10.0.0.0", 8, "private_network"),
            Range.v4("100.64.0.0", 10, "shared_address_space"),
            Range.v4("127.0.0.0", 8, "loopback"),
            Range.v4("169.254.169.254", 32, "cloud_metadata"),
            Range.v4("169.254.0.0", 16, "link_local"),
            Range.v4("172.16.0.0", 12, "private_network"),
            Range.v4("192.0.0.0", 24, "ietf_protocol_assignments"),
            Range.v4("192.0.2.0", 24, "documentation"),
            Range.v4("192.168.0.0", 16, "private_network"),
            Range.v4("198.18.0.0", 15, "benchmarking"),
            Range.v4("198.51.100.0", 24, "documentation"),
            Range.v4("203.0.113.0", 24, "documentation"),
            Range.v4("224.0.0.0", 4, "multicast"),
            Range.v4("240.0.0.0", 4, "reserved"));

    /**
     * IPv6, first match wins: the single addresses come before ::/96 that holds them. The last row refuses whatever
     * lies outside 2000::/3, the only block allocated for global unicast; the rows above it that carry an IPv4
     * address (mapped, NAT64) are the exceptions outside it that a connection can still use.
     */
    private static final List<Range> IPV6 = List.of(
            Range.v6(bytes(), 128, "::/128", "unspecified"),
            Range.v6(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 128, "::1/128", "loopback"),
            Range.embedding(bytes(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff), 96, "::ffff:0:0/96", "ipv4_mapped", 12),
            Range.v6(bytes(), 96, "::/96", "ipv4_compatible"),
            Range.embedding(bytes(0, 0x64, 0xff, 0x9b), 96, "64:ff9b::/96", "nat64", 12),
            Range.v6(bytes(0, 0x64, 0xff, 0x9b, 0, 1), 48, "64:ff9b:1::/48", "local_use_nat64"),
            Range.v6(bytes(0x01, 0), 64, "100::/64", "discard_only"),
            Range.v6(bytes(0x20, 0x01, 0x0d, 0xb8), 32, "2001:db8::/32", "documentation"),
            Range.v6(bytes(0x20, 0x01, 0, 0x02, 0, 0), 48, "2001:2::/48", "benchmarking"),
            Range.v6(bytes(0x20, 0x01, 0, 0), 32, "2001::/32", "teredo"),
            Range.embedding(bytes(0x20, 0x02), 16, "2002::/16", "6to4", 2),
            Range.v6(bytes(0x3f, 0xff), 20, "3fff::/20", "documentation"),
            Range.v6(bytes(0xfc), 7, "fc00::/7", "unique_local"),
            Range.v6(bytes(0xfe, 0x80), 10, "fe80::/10", "link_local"),
            Range.v6(bytes(0xfe, 0xc0), 10, "fec0::/10", "site_local"),
            Range.v6(bytes(0xff), 8, "ff00::/8", "multicast"),
            Range.outside(bytes(0x20), 3, "2000::/3", "not_global_unicast"));

    private final boolean allowPrivateNetworks;

    /** {@code allowPrivateNetworks} lifts the rule entirely, for tests and local demos that deliver to localhost. */
    AddressRules(boolean allowPrivateNetworks) {
        this.allowPrivateNetworks = allowPrivateNetworks;
    }

    /**
     * Empty when the address is public unicast (or private networks are allowed); otherwise why it is refused, e.g.
     * "127.0.0.1 is in 127.0.0.0/8 (loopback)".
     */
    Optional<Text> refusal(InetAddress address) {
        if (allowPrivateNetworks) {
            return Optional.empty();
        }
        byte[] bytes = address.getAddress();
        // Java turns ::ffff:a.b.c.d into an Inet4Address when it parses or resolves it, but an Inet6Address built
        // from the raw bytes keeps the mapped form; both reach the IPv4 table.
        return address instanceof Inet4Address ? judgeV4(bytes) : judgeV6(bytes);
    }

    private static Optional<Text> judgeV4(byte[] address) {
        return match(IPV4, address).map(range -> Text.of("webhooks.address.in_range", format(address),
                range.described()));
    }

    private static Optional<Text> judgeV6(byte[] address) {
        return match(IPV6, address).flatMap(range -> {
            if (range.embeddedAt() < 0) {
                return Optional.of(Text.of("webhooks.address.in_range", format(address), range.described()));
            }
            // The connection would end up at the IPv4 address carried inside, so that address decides.
            byte[] v4 = Arrays.copyOfRange(address, range.embeddedAt(), range.embeddedAt() + 4);
            return match(IPV4, v4).map(inner -> Text.of("webhooks.address.carries", format(address),
                    range.described(), format(v4), inner.described()));
        });
    }

    private static Optional<Range> match(List<Range> table, byte[] address) {
        return table.stream().filter(range -> range.matches(address)).findFirst();
    }

    /** Dotted decimal, or RFC 5952 text (lower case, longest zero run as ::, IPv4-mapped with its IPv4 tail). */
    static String format(byte[] address) {
        if (address.length == 4) {
            return (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "."
                    + (address[3] & 0xff);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = (address[2 * i] & 0xff) << 8 | (address[2 * i + 1] & 0xff);
        }
        boolean mapped = groups[0] == 0 && groups[1] == 0 && groups[2] == 0 && groups[3] == 0 && groups[4] == 0
                && groups[5] == 0xffff;
        if (mapped) {
            return "::ffff:" + format(Arrays.copyOfRange(address, 12, 16));
        }
        int bestStart = -1;
        int bestLength = 1; // a single zero group is not shortened
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = Math.max(j, i + 1);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!text.isEmpty() && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }

    /** The leading bytes of an IPv6 prefix, zero-filled to 16. */
    private static byte[] bytes(int... leading) {
        byte[] address = new byte[16];
        for (int i = 0; i < leading.length; i++) {
            address[i] = (byte) leading[i];
        }
        return address;
    }

    /**
     * One row of the table: a prefix of {@code bits} bits, and what the range is for ({@code label}, the last segment
     * of its message key {@code webhooks.range.<label>}). {@code embeddedAt} is the offset of an IPv4 address the
     * range carries (judged in its place), or -1; {@code outside} makes the row match what the prefix does not hold.
     */
    private record Range(byte[] prefix, int bits, String cidr, String label, int embeddedAt, boolean outside) {

        static Range v4(String network, int bits, String label) {
            String[] parts = network.split("\\.");
            byte[] prefix = new byte[4];
            for (int i = 0; i < 4; i++) {
                prefix[i] = (byte) Integer.parseInt(parts[i]);
            }
            return new Range(prefix, bits, network + "/" + bits, label, -1, false);
        }

        static Range v6(byte[] prefix, int bits, String cidr, String label) {
            return new Range(prefix, bits, cidr, label, -1, false);
        }

        static Range embedding(byte[] prefix, int bits, String cidr, String label, int embeddedAt) {
            return new Range(prefix, bits, cidr, label, embeddedAt, false);
        }

        static Range outside(byte[] prefix, int bits, String cidr, String label) {
            return new Range(prefix, bits, cidr, label, -1, true);
        }

        boolean matches(byte[] address) {
            return contains(address) != outside;
        }

        private boolean contains(byte[] address) {
            if (address.length != prefix.length) {
                return false;
            }
            int whole = bits / 8;
            for (int i = 0; i < whole; i++) {
                if (address[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (address[whole] & mask) == (prefix[whole] & mask);
        }

        /** "127.0.0.0/8 (loopback)". */
        Text described() {
            return Text.of("webhooks.address.range", cidr, Text.of("webhooks.range." + label));
        }
    }
}
