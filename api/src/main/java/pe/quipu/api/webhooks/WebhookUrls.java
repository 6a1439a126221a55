package pe.quipu.api.webhooks;

import pe.quipu.api.domain.Text;

import java.net.IDN;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules a webhook URL must meet, checked when a webhook is created and whenever its URL changes: an absolute
 * https URL (http only in development) naming a host without credentials or fragment, whose every address is public
 * ({@link AddressRules}).
 *
 * <p>The host is parsed here rather than taken from {@link URI#getHost()}, which is null for IDN hosts and for forms
 * such as {@code 127.1}, and which accepts numeric forms ({@code 2130706433}, {@code 0177.0.0.1}) that C resolvers
 * read as an IPv4 address other than the text suggests. Those forms are refused outright instead of guessed at.
 */
final class WebhookUrls {

    static final int MAX_LENGTH = 2048;

    /** The last label of a host that resolvers would take as part of an IPv4 address: decimal, or 0x and hex. */
    private static final Pattern NUMERIC_LABEL = Pattern.compile("[0-9]+|0[xX][0-9a-fA-F]*");
    private static final Pattern DOTTED_DECIMAL =
            Pattern.compile("(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}"
                    + "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])");

    /** How host names are resolved; tests pass their own (a map), production the system's resolver. */
    interface Resolver {
        List<InetAddress> resolve(String host) throws UnknownHostException;
    }

    /** The outcome of {@link #check}. */
    sealed interface Check {
        /**
         * The URL holds. {@code uri} is normalised (lower-case scheme and host, the host in its ASCII form, the rest
         * as given); {@code host} is that ASCII host (no brackets for IPv6), {@code port} the effective port, and
         * {@code pinned} the address to connect to, so that a later DNS answer cannot swap in another address.
         */
        record Accepted(URI uri, String host, int port, InetAddress pinned) implements Check {
        }

        /** {@code reason} is a sentence for a 400 detail that names the rule broken. */
        record Refused(Text reason) implements Check {
        }
    }

    private final boolean allowHttp;
    private final AddressRules rules;
    private final Resolver resolver;

    WebhookUrls(boolean allowHttp, AddressRules rules, Resolver resolver) {
        this.allowHttp = allowHttp;
        this.rules = rules;
        this.resolver = resolver;
    }

    Check check(String url) {
        if (url == null || url.isEmpty()) {
            return refused(Text.of("webhooks.url.required"));
        }
        if (url.length() > MAX_LENGTH) {
            return refused(Text.of("webhooks.url.too_long", url.length(), MAX_LENGTH));
        }
        if (url.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isSpaceChar(c)
                || Character.isISOControl(c))) {
            return refused(Text.of("webhooks.url.whitespace"));
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return refused(notAUri(url, e));
        }
        if (uri.getScheme() == null) {
            return refused(Text.of("webhooks.url.not_absolute"));
        }

        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("http") && !allowHttp) {
            return refused(Text.of("webhooks.url.http_in_development_only"));
        }
        if (!scheme.equals("https") && !scheme.equals("http")) {
            return refused(Text.of("webhooks.url.scheme", scheme));
        }

        String authority = uri.getRawAuthority();
        if (uri.isOpaque() || authority == null || authority.isEmpty()) {
            return refused(Text.of("webhooks.url.no_host", scheme));
        }
        if (authority.contains("@")) {
            return refused(Text.of("webhooks.url.user_info"));
        }
        if (uri.getRawFragment() != null) {
            return refused(Text.of("webhooks.url.fragment"));
        }

        Authority parts;
        try {
            parts = Authority.parse(authority);
        } catch (Authority.Malformed e) {
            return refused(e.reason());
        }
        int port = parts.port() != Authority.DEFAULT_PORT ? parts.port() : scheme.equals("https") ? 443 : 80;
        return parts.bracketed() ? checkIpv6Literal(uri, scheme, parts, port) : checkHost(uri, scheme, parts, port);
    }

    /** A bracketed IPv6 literal: judged as written, without DNS. */
    private Check checkIpv6Literal(URI uri, String scheme, Authority parts, int port) {
        String literal = parts.host().toLowerCase(Locale.ROOT);
        if (literal.contains("%")) {
            return refused(Text.of("webhooks.host.zone_id", literal));
        }
        InetAddress address;
        try {
            address = Inet6Address.ofLiteral(literal);
        } catch (IllegalArgumentException e) {
            return refused(Text.of("webhooks.host.invalid_ipv6", literal));
        }
        Optional<Text> refusal = rules.refusal(address);
        if (refusal.isPresent()) {
            return refused(Text.of("webhooks.host.not_public", "[" + literal + "]", refusal.get()));
        }
        return accepted(uri, scheme, "[" + literal + "]", literal, parts, port, address);
    }

    private Check checkHost(URI uri, String scheme, Authority parts, int port) {
        String given = parts.host();
        if (given.contains("%")) {
            return refused(Text.of("webhooks.host.percent_encoded", given));
        }
        String host;
        try {
            // STD3 rules keep the name to letters, digits and hyphens, as DNS host names are; the mapping also turns
            // full-width digits and dots into ASCII ones, so the numeric checks below see what a resolver would.
            host = IDN.toASCII(given, IDN.USE_STD3_ASCII_RULES).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            return refused(notAHostName(given));
        }
        if (host.isEmpty()) {
            return refused(Text.of("webhooks.url.no_host", scheme));
        }

        String[] labels = stripTrailingDot(host).split("\\.", -1);
        if (NUMERIC_LABEL.matcher(labels[labels.length - 1]).matches()) {
            if (!DOTTED_DECIMAL.matcher(host).matches()) {
                return refused(inetAton(labels)
                        .map(read -> Text.of("webhooks.host.numeric_read_as", host, read))
                        .orElse(Text.of("webhooks.host.numeric_not_ipv4", host)));
            }
            InetAddress address = Inet4Address.ofLiteral(host);
            Optional<Text> refusal = rules.refusal(address);
            if (refusal.isPresent()) {
                return refused(Text.of("webhooks.host.not_public", host, refusal.get()));
            }
            return accepted(uri, scheme, host, host, parts, port, address);
        }

        URI normalised = normalise(uri, scheme, host, parts);
        if (normalised == null || normalised.getHost() == null) {
            return refused(Text.of("webhooks.host.invalid", host));
        }
        List<InetAddress> addresses;
        try {
            addresses = resolver.resolve(host);
        } catch (BoundedResolver.TimedOut e) {
            return refused(e.waited().isZero() ? Text.of("webhooks.host.resolvers_busy", host)
                    : Text.of("webhooks.host.resolve_timed_out", host, waited(e.waited())));
        } catch (UnknownHostException e) {
            return refused(Text.of("webhooks.host.does_not_resolve", host));
        }
        if (addresses == null || addresses.isEmpty()) {
            return refused(Text.of("webhooks.host.does_not_resolve", host));
        }
        // Every address is checked, as a connection may use any of them; one private answer refuses the host. The
        // address is not named: what an internal name resolves to is the operator's network, not the caller's to
        // learn (a literal the caller wrote is named, above).
        for (InetAddress address : addresses) {
            if (rules.refusal(address).isPresent()) {
                return refused(Text.of("webhooks.host.resolves_non_public", host));
            }
        }
        // The resolver's first answer is kept rather than the first IPv4 one: its order is the system's address
        // preference (RFC 6724, java.net.preferIPv6Addresses), which is what a plain connection would have used.
        return new Check.Accepted(normalised, host, port, addresses.getFirst());
    }

    private static Check accepted(URI uri, String scheme, String uriHost, String host, Authority parts, int port,
                                  InetAddress address) {
        URI normalised = normalise(uri, scheme, uriHost, parts);
        if (normalised == null) {
            return refused(Text.of("webhooks.url.invalid"));
        }
        return new Check.Accepted(normalised, host, port, address);
    }

    /** Scheme and host lower case and the host in ASCII; port, path and query as given. Null if that won't parse. */
    private static URI normalise(URI uri, String scheme, String uriHost, Authority parts) {
        StringBuilder text = new StringBuilder(scheme).append("://").append(uriHost);
        if (parts.port() != Authority.DEFAULT_PORT) {
            text.append(':').append(parts.port());
        }
        if (uri.getRawPath() != null) {
            text.append(uri.getRawPath());
        }
        if (uri.getRawQuery() != null) {
            text.append('?').append(uri.getRawQuery());
        }
        try {
            return new URI(text.toString());
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** How long a lookup was waited for: "1 second", "5 seconds", "1500 ms". */
    private static Text waited(Duration waited) {
        long millis = waited.toMillis();
        if (millis % 1000 != 0) {
            return Text.of("webhooks.duration.millis", millis);
        }
        return millis == 1000 ? Text.of("webhooks.duration.one_second")
                : Text.of("webhooks.duration.seconds", millis / 1000);
    }

    /**
     * Why {@code url} is not a URI, described from where {@link URI}'s parser stopped rather than in its own words
     * (English, and naming the parser's grammar): an illegal character, a broken %-escape, a malformed IPv6 literal,
     * or else only the place.
     */
    private static Text notAUri(String url, URISyntaxException e) {
        int index = e.getIndex();
        if (index < 0 || index > url.length()) {
            return Text.of("webhooks.url.invalid");
        }
        String reason = e.getReason() == null ? "" : e.getReason();
        if (reason.startsWith("Illegal character") && index < url.length()) {
            return Text.of("webhooks.url.illegal_character", Character.toString(url.codePointAt(index)), index);
        }
        if (reason.startsWith("Malformed escape pair")) {
            return Text.of("webhooks.url.malformed_escape", index);
        }
        if (reason.contains("IPv6")) {
            return Text.of("webhooks.url.malformed_ipv6", index);
        }
        return Text.of("webhooks.url.invalid_at", index);
    }

    /**
     * Why {@code given} is not a host name {@link IDN} takes (STD3 rules), found in its labels rather than taken from
     * IDN's English message: an empty label, a character other than a letter, digit or hyphen, a label starting or
     * ending with a hyphen, one over 63 characters; or, for what only IDN's mapping reveals, no more than that.
     */
    private static Text notAHostName(String given) {
        String[] labels = given.split("[.\u3002\uFF0E\uFF61]", -1);
        for (int i = 0; i < labels.length; i++) {
            String label = labels[i];
            if (label.isEmpty()) {
                if (i > 0 && i == labels.length - 1) {
                    continue; // a trailing dot: the name is fully qualified
                }
                return Text.of("webhooks.host.empty_label", given);
            }
            for (int j = 0; j < label.length(); j++) {
                char c = label.charAt(j);
                boolean ldh = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
                if (c < 0x80 && !ldh) {
                    return Text.of("webhooks.host.illegal_character", given, String.valueOf(c));
                }
            }
            if (label.startsWith("-") || label.endsWith("-")) {
                return Text.of("webhooks.host.hyphen", given, label);
            }
            if (label.chars().allMatch(c -> c < 0x80) && label.length() > 63) {
                return Text.of("webhooks.host.long_label", given);
            }
        }
        return Text.of("webhooks.host.invalid", given);
    }

    private static String stripTrailingDot(String host) {
        return host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    }

    /**
     * The IPv4 address inet_aton reads from these labels, when it reads one: one to four parts, each decimal, octal
     * after a leading 0, or hex after 0x; the last part fills the bytes the others leave (so {@code 127.1} is
     * 127.0.0.1 and {@code 2130706433} is too).
     */
    static Optional<String> inetAton(String[] labels) {
        if (labels.length > 4) {
            return Optional.empty();
        }
        long[] values = new long[labels.length];
        for (int i = 0; i < labels.length; i++) {
            values[i] = atonPart(labels[i]);
            if (values[i] < 0) {
                return Optional.empty();
            }
        }
        long address = 0;
        for (int i = 0; i < values.length - 1; i++) {
            if (values[i] > 0xff) {
                return Optional.empty();
            }
            address |= values[i] << (8 * (3 - i));
        }
        long last = values[values.length - 1];
        if (last >= 1L << (8 * (5 - values.length))) {
            return Optional.empty();
        }
        address |= last;
        byte[] bytes = {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
        return Optional.of(AddressRules.format(bytes));
    }

    /** The value of one part, or -1 when inet_aton would not read it. */
    private static long atonPart(String part) {
        String digits;
        int radix;
        if (part.startsWith("0x") || part.startsWith("0X")) {
            digits = part.substring(2);
            radix = 16;
        } else if (part.length() > 1 && part.startsWith("0")) {
            digits = part.substring(1);
            radix = 8;
        } else {
            digits = part;
            radix = 10;
        }
        if (digits.isEmpty()) {
            return radix == 10 ? -1 : 0; // "0x" reads as 0, "" not at all
        }
        if (digits.replaceFirst("^0+", "").length() > 12) { // over 32 bits in any radix; keeps parseLong in range
            return -1;
        }
        try {
            return Long.parseLong(digits, radix);
        } catch (NumberFormatException e) {
            return -1; // e.g. 8 or 9 in an octal part
        }
    }

    private static Check refused(Text reason) {
        return new Check.Refused(reason);
    }

    /**
     * The host and port of a raw authority already known to hold no user info. {@code host} is without brackets;
     * {@code bracketed} tells an IPv6 literal from a name; {@code port} is {@link #DEFAULT_PORT} when none is given.
     * Throws {@link Malformed} with a refusal reason when the port is not 1-65535.
     */
    private record Authority(String host, boolean bracketed, int port) {

        static final int DEFAULT_PORT = 0; // not a port a URL may name, so it cannot be mistaken for one

        /** The authority's fault, as a refusal reason. */
        static final class Malformed extends IllegalArgumentException {
            private final transient Text reason;

            Malformed(Text reason) {
                super(reason.english());
                this.reason = reason;
            }

            Text reason() {
                return reason;
            }
        }

        static Authority parse(String authority) {
            String host;
            String rest;
            boolean bracketed = authority.startsWith("[");
            if (bracketed) {
                int close = authority.indexOf(']');
                if (close < 0) {
                    throw new Malformed(Text.of("webhooks.url.ipv6_unclosed"));
                }
                host = authority.substring(1, close);
                rest = authority.substring(close + 1);
            } else {
                int colon = authority.indexOf(':');
                host = colon < 0 ? authority : authority.substring(0, colon);
                rest = colon < 0 ? "" : authority.substring(colon);
            }
            if (rest.isEmpty()) {
                return new Authority(host, bracketed, DEFAULT_PORT);
            }
            String port = rest.substring(1);
            if (!rest.startsWith(":") || !port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1
                    || Integer.parseInt(port) > 65535) {
                throw new Malformed(Text.of("webhooks.url.port"));
            }
            return new Authority(host, bracketed, Integer.parseInt(port));
        }
    }
}
