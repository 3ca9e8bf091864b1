// The parts of OpenSSL 3 libcrypto that secure-signals uses, plus a few inline
// wrappers for what Swift cannot call directly: OSSL_PARAM arrays whose string and
// buffer pointers must outlive the call, and function-like macros.
#ifndef SECURE_SIGNALS_CLIBCRYPTO_SHIM_H
#define SECURE_SIGNALS_CLIBCRYPTO_SHIM_H

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

/// An HMAC-SHA256 context of the fetched `mac`, reused for every step of one HPKE
/// setup: re-keying a context is far cheaper than OpenSSL 3.0's HKDF, which fetches
/// HMAC anew on every Extract.
static inline EVP_MAC_CTX *ss_hmac_sha256_new(EVP_MAC *mac) {
    static char digest[] = "SHA256";
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    if (ctx == NULL) return NULL;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_end();
    if (EVP_MAC_CTX_set_params(ctx, params) != 1) {
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/// HMAC-SHA256(key, part1 || part2 || part3) into the 32 bytes at `out`. Empty keys
/// and parts are allowed; a key must still be a non-NULL pointer, hence the static byte.
static inline int ss_hmac_sha256(EVP_MAC_CTX *ctx, const unsigned char *key, size_t key_len,
                                 const unsigned char *part1, size_t len1,
                                 const unsigned char *part2, size_t len2,
                                 const unsigned char *part3, size_t len3,
                                 unsigned char *out) {
    static const unsigned char empty[1] = {0};
    size_t out_len = 0;
    if (EVP_MAC_init(ctx, key_len ? key : empty, key_len, NULL) != 1) return 0;
    if (len1 && EVP_MAC_update(ctx, part1, len1) != 1) return 0;
    if (len2 && EVP_MAC_update(ctx, part2, len2) != 1) return 0;
    if (len3 && EVP_MAC_update(ctx, part3, len3) != 1) return 0;
    return EVP_MAC_final(ctx, out, &out_len, 32) == 1 && out_len == 32;
}

/// One step of libcrypto's own HKDF (mode EVP_KDF_HKDF_MODE_EXTRACT_ONLY or
/// _EXPAND_ONLY) on a fresh context: the reference the tests hold HKDF to.
static inline int ss_hkdf_reference(int mode, const unsigned char *secret, size_t secret_len,
                                    const unsigned char *extra, size_t extra_len,
                                    unsigned char *out, size_t out_len) {
    static const unsigned char empty[1] = {0};
    static char digest[] = "SHA256";
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (ctx == NULL) return 0;
    OSSL_PARAM params[5];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
    params[1] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
    params[2] = OSSL_PARAM_construct_octet_string(
        OSSL_KDF_PARAM_KEY, (void *)(secret_len ? secret : empty), secret_len);
    params[3] = OSSL_PARAM_construct_octet_string(
        mode == EVP_KDF_HKDF_MODE_EXTRACT_ONLY ? OSSL_KDF_PARAM_SALT : OSSL_KDF_PARAM_INFO,
        (void *)(extra_len ? extra : empty), extra_len);
    params[4] = OSSL_PARAM_construct_end();
    int ok = EVP_KDF_derive(ctx, out, out_len, params);
    EVP_KDF_CTX_free(ctx);
    return ok == 1;
}

/// AEAD seal with a 12-byte nonce: writes `pt_len` bytes of ciphertext then the
/// 16-byte tag to `out`.
static inline int ss_aead_seal(const EVP_CIPHER *cipher,
                               const unsigned char *key, const unsigned char *nonce,
                               const unsigned char *aad, size_t aad_len,
                               const unsigned char *pt, size_t pt_len,
                               unsigned char *out) {
    static const unsigned char empty[1] = {0};
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) return 0;
    int ok = 0, len = 0;
    if (EVP_EncryptInit_ex2(ctx, cipher, key, nonce, NULL) != 1) goto done;
    if (aad_len > 0 && EVP_EncryptUpdate(ctx, NULL, &len, aad, (int)aad_len) != 1) goto done;
    if (EVP_EncryptUpdate(ctx, out, &len, pt_len ? pt : empty, (int)pt_len) != 1) goto done;
    if (EVP_EncryptFinal_ex(ctx, out + len, &len) != 1) goto done;
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out + pt_len) != 1) goto done;
    ok = 1;
done:
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/// AEAD open with a 12-byte nonce: `ct` ends with the 16-byte tag; writes
/// `ct_len - 16` bytes of plaintext to `out`. Returns 0 when the tag does not verify.
static inline int ss_aead_open(const EVP_CIPHER *cipher,
                               const unsigned char *key, const unsigned char *nonce,
                               const unsigned char *aad, size_t aad_len,
                               const unsigned char *ct, size_t ct_len,
                               unsigned char *out) {
    static unsigned char empty[1] = {0};
    if (ct_len < 16) return 0;
    size_t body_len = ct_len - 16;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) return 0;
    int ok = 0, len = 0;
    if (EVP_DecryptInit_ex2(ctx, cipher, key, nonce, NULL) != 1) goto done;
    if (aad_len > 0 && EVP_DecryptUpdate(ctx, NULL, &len, aad, (int)aad_len) != 1) goto done;
    if (EVP_DecryptUpdate(ctx, body_len ? out : empty, &len, body_len ? ct : empty, (int)body_len) != 1)
        goto done;
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, (void *)(ct + body_len)) != 1) goto done;
    if (EVP_DecryptFinal_ex(ctx, (body_len ? out : empty) + len, &len) != 1) goto done;
    ok = 1;
done:
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/// `BIO_get_mem_data` is a macro; Swift needs a function.
static inline long ss_bio_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

#endif
