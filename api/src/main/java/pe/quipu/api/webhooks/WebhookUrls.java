package pe.quipu.api.webhooks;

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
    private static final String DOTTED_DECIMAL_HINT = "write an IPv4 address in dotted-decimal form";

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
        record Refused(String reason) implements Check {
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
            return refused("a webhook URL is required");
        }
        if (url.length() > MAX_LENGTH) {
            return refused("the URL is " + url.length() + " characters long; at most " + MAX_LENGTH + " are accepted");
        }
        if (url.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isSpaceChar(c)
                || Character.isISOControl(c))) {
            return refused("the URL contains whitespace or control characters");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return refused("the URL is not a valid URI: " + e.getReason() + " at index " + e.getIndex());
        }
        if (uri.getScheme() == null) {
            return refused("the URL must be absolute, starting with https://");
        }

        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if (scheme.equals("http") && !allowHttp) {
            return refused("http:// URLs are accepted only in development (webhooks.allowHttp); use https://");
        }
        if (!scheme.equals("https") && !scheme.equals("http")) {
            return refused("the URL scheme " + scheme + ": is not accepted; use https://");
        }

        String authority = uri.getRawAuthority();
        if (uri.isOpaque() || authority == null || authority.isEmpty()) {
            return refused("the URL has no host; write it as " + scheme + "://host/path");
        }
        if (authority.contains("@")) {
            return refused("the URL must not contain a user name or password; put credentials elsewhere");
        }
        if (uri.getRawFragment() != null) {
            return refused("the URL must not contain a fragment (#...)");
        }

        Authority parts;
        try {
            parts = Authority.parse(authority);
        } catch (IllegalArgumentException e) {
            return refused(e.getMessage());
        }
        int port = parts.port() != Authority.DEFAULT_PORT ? parts.port() : scheme.equals("https") ? 443 : 80;
        return parts.bracketed() ? checkIpv6Literal(uri, scheme, parts, port) : checkHost(uri, scheme, parts, port);
    }

    /** A bracketed IPv6 literal: judged as written, without DNS. */
    private Check checkIpv6Literal(URI uri, String scheme, Authority parts, int port) {
        String literal = parts.host().toLowerCase(Locale.ROOT);
        if (literal.contains("%")) {
            return refused("the IPv6 address [" + literal + "] has a zone id; zone ids are not accepted");
        }
        InetAddress address;
        try {
            address = Inet6Address.ofLiteral(literal);
        } catch (IllegalArgumentException e) {
            return refused("the host [" + literal + "] is not a valid IPv6 address");
        }
        Optional<String> refusal = rules.refusal(address);
        if (refusal.isPresent()) {
            return refused("the host [" + literal + "] is not a public address: " + refusal.get());
        }
        return accepted(uri, scheme, "[" + literal + "]", literal, parts, port, address);
    }

    private Check checkHost(URI uri, String scheme, Authority parts, int port) {
        String given = parts.host();
        if (given.contains("%")) {
            return refused("the host " + given + " contains percent-encoding; write the host name as it is");
        }
        String host;
        try {
            // STD3 rules keep the name to letters, digits and hyphens, as DNS host names are; the mapping also turns
            // full-width digits and dots into ASCII ones, so the numeric checks below see what a resolver would.
            host = IDN.toASCII(given, IDN.USE_STD3_ASCII_RULES).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            return refused("the host " + given + " is not a valid host name (" + e.getMessage() + ")");
        }
        if (host.isEmpty()) {
            return refused("the URL has no host; write it as " + scheme + "://host/path");
        }

        String[] labels = stripTrailingDot(host).split("\\.", -1);
        if (NUMERIC_LABEL.matcher(labels[labels.length - 1]).matches()) {
            if (!DOTTED_DECIMAL.matcher(host).matches()) {
                return refused(inetAton(labels)
                        .map(read -> "the host " + host + " is read by resolvers as " + read + "; "
                                + DOTTED_DECIMAL_HINT)
                        .orElse("the host " + host + " looks like a numeric IPv4 address but is not one; "
                                + DOTTED_DECIMAL_HINT));
            }
            InetAddress address = Inet4Address.ofLiteral(host);
            Optional<String> refusal = rules.refusal(address);
            if (refusal.isPresent()) {
                return refused("the host " + host + " is not a public address: " + refusal.get());
            }
            return accepted(uri, scheme, host, host, parts, port, address);
        }

        URI normalised = normalise(uri, scheme, host, parts);
        if (normalised == null || normalised.getHost() == null) {
            return refused("the host " + host + " is not a valid host name");
        }
        List<InetAddress> addresses;
        try {
            addresses = resolver.resolve(host);
        } catch (BoundedResolver.TimedOut e) {
            return refused(e.waited().isZero()
                    ? "the host " + host + " could not be resolved now (too many lookups under way); try again later"
                    : "the host " + host + " did not resolve within " + seconds(e.waited())
                            + "; check its name servers, or try again later");
        } catch (UnknownHostException e) {
            return refused("the host " + host + " does not resolve");
        }
        if (addresses == null || addresses.isEmpty()) {
            return refused("the host " + host + " does not resolve");
        }
        // Every address is checked, as a connection may use any of them; one private answer refuses the host. The
        // address is not named: what an internal name resolves to is the operator's network, not the caller's to
        // learn (a literal the caller wrote is named, above).
        for (InetAddress address : addresses) {
            if (rules.refusal(address).isPresent()) {
                return refused("the host " + host + " resolves to a non-public address; webhooks are delivered to "
                        + "public addresses only");
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
            return refused("the URL is not a valid URI");
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

    private static String seconds(Duration waited) {
        long millis = waited.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + (millis == 1000 ? " second" : " seconds") : millis + " ms";
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

    private static Check refused(String reason) {
        return new Check.Refused(reason);
    }

    /**
     * The host and port of a raw authority already known to hold no user info. {@code host} is without brackets;
     * {@code bracketed} tells an IPv6 literal from a name; {@code port} is {@link #DEFAULT_PORT} when none is given.
     * Throws with a refusal reason when the port is not 1-65535.
     */
    private record Authority(String host, boolean bracketed, int port) {

        static final int DEFAULT_PORT = 0; // not a port a URL may name, so it cannot be mistaken for one

        static Authority parse(String authority) {
            String host;
            String rest;
            boolean bracketed = authority.startsWith("[");
            if (bracketed) {
                int close = authority.indexOf(']');
                if (close < 0) {
                    throw new IllegalArgumentException("the IPv6 address in the URL has no closing bracket");
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
                throw new IllegalArgumentException("the URL port must be a number from 1 to 65535");
            }
            return new Authority(host, bracketed, Integer.parseInt(port));
        }
    }
}
