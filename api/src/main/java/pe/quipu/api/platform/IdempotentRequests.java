package pe.quipu.api.platform;

import org.jdbi.v3.core.Jdbi;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The answers to requests sent with an {@code Idempotency-Key} (draft-ietf-httpapi-idempotency-key-header), kept
 * per account in PostgreSQL for {@link #KEPT}, so that a retry reaching any instance gets the first answer instead of
 * a second key or endpoint.
 *
 * <p>The key is never stored: a row is found by a hash of it, and the answer, which may hold a secret shown once (a
 * new API key, a webhook's signing secret), is encrypted (AES-256-GCM) with a key derived from it. The table alone
 * gives back neither the keys nor the answers; a client that sends a random key (a UUID) is the only holder of both.
 */
public final class IdempotentRequests {

    /** How long an answer is replayed. */
    public static final Duration KEPT = Duration.ofHours(24);
    /**
     * How long a first request may run before a retry may take its place: the instance that ran it may have died.
     * Longer than any request Quipu serves (a webhook test waits at most its delivery timeout).
     */
    static final Duration ABANDONED_AFTER = Duration.ofMinutes(2);

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int NONCE_BYTES = 12;

    private final Jdbi jdbi;
    private final Clock clock;

    public IdempotentRequests(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    /** What a request under a key finds. */
    public sealed interface Claim permits Claim.First, Claim.Replay, Claim.Running, Claim.Mismatch {
        /** Nothing kept for this key (or only what expired): the request runs, and its answer is kept with the token. */
        record First(Token token) implements Claim {
        }

        /** The first answer to the same request. */
        record Replay(Answer answer) implements Claim {
        }

        /** The first request with this key is still running. */
        record Running() implements Claim {
        }

        /** The key was used with another request (method, path or body). */
        record Mismatch() implements Claim {
        }
    }

    /** A kept answer: its status, headers and body. */
    public record Answer(int status, Map<String, List<String>> headers, byte[] body) {
    }

    /** The claim of a first request, to {@link #complete} with its answer or {@link #release}. */
    public record Token(UUID account, byte[] keyId, byte[] secret, Instant claimedAt) {
    }

    /**
     * Claims {@code key} for this request, or tells what an earlier request under it left.
     *
     * @param fingerprint a digest of the request (method, path, body), see {@link #fingerprint}
     */
    public Claim claim(UUID account, String key, byte[] fingerprint) {
        byte[] keyId = digest("quipu idempotency key id", key.getBytes(StandardCharsets.UTF_8));
        for (int attempt = 0; ; attempt++) {
            // As PostgreSQL keeps it (microseconds): the token finds its row by this time.
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
            boolean claimed = jdbi.withHandle(h -> h.createQuery("""
                    insert into idempotency_keys (account_id, key_id, fingerprint, created_at, expires_at)
                    values (:account, :keyId, :fingerprint, :now, :expires)
                    on conflict (account_id, key_id) do update
                       set fingerprint = excluded.fingerprint, status = null, answer = null,
                           created_at = excluded.created_at, expires_at = excluded.expires_at
                     where idempotency_keys.expires_at <= :now
                        or idempotency_keys.status is null and idempotency_keys.created_at <= :abandoned
                    returning true""")
                    .bind("account", account).bind("keyId", keyId).bind("fingerprint", fingerprint)
                    .bind("now", now).bind("expires", now.plus(KEPT)).bind("abandoned", now.minus(ABANDONED_AFTER))
                    .mapTo(Boolean.class).findOne().isPresent());
            if (claimed) {
                return new Claim.First(new Token(account, keyId, secret(account, key), now));
            }
            Map<String, Object> row = jdbi.withHandle(h -> h.createQuery("""
                    select fingerprint, status, answer from idempotency_keys
                     where account_id = :account and key_id = :keyId""")
                    .bind("account", account).bind("keyId", keyId).mapToMap().findOne().orElse(null));
            if (row == null) {
                if (attempt < 3) {
                    continue; // pruned in between: claim it again
                }
                throw new IllegalStateException("could not claim an idempotency key");
            }
            if (!MessageDigest.isEqual((byte[]) row.get("fingerprint"), fingerprint)) {
                return new Claim.Mismatch();
            }
            if (row.get("status") == null) {
                return new Claim.Running();
            }
            return new Claim.Replay(decrypt(secret(account, key), account, keyId, (byte[]) row.get("answer")));
        }
    }

    /** Keeps the first request's answer for its retries. */
    public void complete(Token token, Answer answer) {
        byte[] sealed = encrypt(token.secret(), token.account(), token.keyId(), answer);
        jdbi.useHandle(h -> h.createUpdate("""
                update idempotency_keys set status = :status, answer = :answer
                 where account_id = :account and key_id = :keyId and created_at = :claimedAt""")
                .bind("status", answer.status()).bind("answer", sealed).bind("account", token.account())
                .bind("keyId", token.keyId()).bind("claimedAt", token.claimedAt()).execute());
    }

    /** Forgets the claim: the request failed in a way a retry should run again (a 5xx, a 429). */
    public void release(Token token) {
        jdbi.useHandle(h -> h.createUpdate("""
                delete from idempotency_keys
                 where account_id = :account and key_id = :keyId and created_at = :claimedAt and status is null""")
                .bind("account", token.account()).bind("keyId", token.keyId()).bind("claimedAt", token.claimedAt())
                .execute());
    }

    /** Deletes what expired; returns how many rows went. */
    public int prune() {
        return jdbi.withHandle(h -> h.createUpdate("delete from idempotency_keys where expires_at <= :now")
                .bind("now", clock.instant()).execute());
    }

    /** The digest of a request that a key may be replayed for: the same method, path and body bytes. */
    public static byte[] fingerprint(String method, String path, byte[] body) {
        MessageDigest sha = sha256();
        sha.update((method + " " + path + "\n").getBytes(StandardCharsets.UTF_8));
        sha.update(body);
        return sha.digest();
    }

    private static byte[] secret(UUID account, String key) {
        return digest("quipu idempotency answer key " + account, key.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] digest(String purpose, byte[] value) {
        MessageDigest sha = sha256();
        sha.update(purpose.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(value);
        return sha.digest();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    static byte[] encrypt(byte[] secret, UUID account, byte[] keyId, Answer answer) {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(secret, "AES"), new GCMParameterSpec(128, nonce));
            cipher.updateAAD(associated(account, keyId));
            byte[] sealed = cipher.doFinal(serialize(answer));
            byte[] stored = new byte[NONCE_BYTES + sealed.length];
            System.arraycopy(nonce, 0, stored, 0, NONCE_BYTES);
            System.arraycopy(sealed, 0, stored, NONCE_BYTES, sealed.length);
            return stored;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not encrypt an idempotent answer", e);
        }
    }

    static Answer decrypt(byte[] secret, UUID account, byte[] keyId, byte[] stored) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(secret, "AES"),
                    new GCMParameterSpec(128, stored, 0, NONCE_BYTES));
            cipher.updateAAD(associated(account, keyId));
            return deserialize(cipher.doFinal(stored, NONCE_BYTES, stored.length - NONCE_BYTES));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not decrypt an idempotent answer", e);
        }
    }

    private static byte[] associated(UUID account, byte[] keyId) {
        byte[] bytes = (account + ":").getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[bytes.length + keyId.length];
        System.arraycopy(bytes, 0, all, 0, bytes.length);
        System.arraycopy(keyId, 0, all, bytes.length, keyId.length);
        return all;
    }

    private static byte[] serialize(Answer answer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(answer.status());
            out.writeInt(answer.headers().size());
            for (Map.Entry<String, List<String>> header : answer.headers().entrySet()) {
                out.writeUTF(header.getKey());
                out.writeInt(header.getValue().size());
                for (String value : header.getValue()) {
                    out.writeUTF(value);
                }
            }
            out.writeInt(answer.body().length);
            out.write(answer.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static Answer deserialize(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int status = in.readInt();
            int count = in.readInt();
            Map<String, List<String>> headers = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String name = in.readUTF();
                int values = in.readInt();
                List<String> list = new ArrayList<>(values);
                for (int v = 0; v < values; v++) {
                    list.add(in.readUTF());
                }
                headers.put(name, List.copyOf(list));
            }
            byte[] body = in.readNBytes(in.readInt());
            return new Answer(status, headers, body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
