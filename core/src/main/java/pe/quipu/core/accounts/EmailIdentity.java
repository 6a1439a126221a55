package pe.quipu.core.accounts;

import java.lang.Character.UnicodeScript;
import java.net.IDN;
import java.text.Normalizer;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The one normal form of an e-mail address that identifies an account (docs/decisions.md, Hardening): the domain as IDNA
 * ASCII ({@link IDN#toASCII}) lower-cased; the local part NFKC, case-folded (upper- then lower-cased under
 * {@link Locale#ROOT}, so {@code ß} is {@code ss} and {@code ς} is {@code σ}), and NFKC again. Uniqueness, login, the
 * operator's look-ups by email and the login throttle all compare this form, kept in {@code accounts.email_identity};
 * the address as typed is what Quipu shows and writes to.
 */
public final class EmailIdentity {

    /**
     * The SQL condition for the account of {@code :identity} (this form) or {@code :email} (as given): a row whose
     * identity was never computed (two accounts of one identity from before the migration) still matches exactly
     * the way it did before.
     */
    public static final String MATCHES =
            "(email_identity = :identity or (email_identity is null and lower(email) = lower(:email)))";

    /**
     * Follows {@link #MATCHES}: when it matches two rows (such a row and the holder of its identity), the one whose
     * address is spelt as given, as before the identity existed.
     */
    public static final String EXACT_FIRST = " order by lower(email) = lower(:email) desc, created_at limit 1";

    /** Scripts that one writing system mixes legitimately (Japanese, Korean, Chinese with Bopomofo). */
    private static final Set<Set<UnicodeScript>> MIXES = Set.of(
            EnumSet.of(UnicodeScript.HAN, UnicodeScript.HIRAGANA, UnicodeScript.KATAKANA),
            EnumSet.of(UnicodeScript.HAN, UnicodeScript.HANGUL),
            EnumSet.of(UnicodeScript.HAN, UnicodeScript.BOPOMOFO));

    private EmailIdentity() {
    }

    /** The normal form of {@code email}; never fails (a domain IDNA refuses is only case-folded). */
    public static String of(String email) {
        String address = email.strip();
        int at = address.lastIndexOf('@');
        if (at < 0) {
            return fold(address);
        }
        String local = address.substring(0, at);
        String domain = address.substring(at + 1);
        String ascii;
        try {
            ascii = IDN.toASCII(domain).toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
            ascii = fold(domain);
        }
        return fold(local) + "@" + ascii;
    }

    /**
     * Why {@code email} (already of the shape local@domain) cannot name a new account, or null: a domain that is not
     * a valid internationalised domain name, or a local part that mixes scripts (look-alikes such as a Cyrillic
     * {@code а} among Latin letters).
     */
    public static Fault fault(String email) {
        int at = email.lastIndexOf('@');
        try {
            IDN.toASCII(email.substring(at + 1));
        } catch (IllegalArgumentException e) {
            return Fault.DOMAIN_NOT_IDN;
        }
        Set<UnicodeScript> scripts = EnumSet.noneOf(UnicodeScript.class);
        Normalizer.normalize(email.substring(0, at), Normalizer.Form.NFKC).codePoints().forEach(cp -> {
            UnicodeScript script = UnicodeScript.of(cp);
            if (script != UnicodeScript.COMMON && script != UnicodeScript.INHERITED && script != UnicodeScript.UNKNOWN) {
                scripts.add(script);
            }
        });
        if (scripts.size() > 1 && MIXES.stream().noneMatch(mix -> mix.containsAll(scripts))) {
            return Fault.MIXED_SCRIPTS;
        }
        return null;
    }

    /** Why an email cannot name a new account; the API says each in the caller's language. */
    public enum Fault {
        /** The domain is not a valid internationalised domain name. */
        DOMAIN_NOT_IDN,
        /** The local part mixes scripts (look-alikes). */
        MIXED_SCRIPTS
    }

    private static String fold(String text) {
        String folded = Normalizer.normalize(text, Normalizer.Form.NFKC)
                .toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
        return Normalizer.normalize(folded, Normalizer.Form.NFKC);
    }
}
