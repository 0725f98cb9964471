// OpenSSL's libcrypto, loaded when one of these functions is first called (ucube_lazy.h): TDES (DUKPT, MAC, PIN
// blocks, SRED), code signing and the TMS identity. `--version`, `info` and the other commands that encipher nothing
// leave it unloaded. Every function ucube calls is here, and only those: a new one is a link error ("undefined
// symbol") until it is added, with the prototype of its OpenSSL header.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/x509.h>

#include "ucube_lazy.h"

static struct ucube_lazy_library libcrypto = UCUBE_LAZY_LIBRARY(
    "libcrypto.so.3", "this command's cryptography (OpenSSL)", "libssl3");

#define LAZY(result, name, parameters, arguments) UCUBE_LAZY(libcrypto, result, name, parameters, arguments)
#define LAZY_VOID(name, parameters, arguments) UCUBE_LAZY_VOID(libcrypto, name, parameters, arguments)

// Errors
LAZY_VOID(ERR_clear_error, (void), ())
LAZY(unsigned long, ERR_get_error, (void), ())
LAZY_VOID(ERR_error_string_n, (unsigned long e, char *buf, size_t len), (e, buf, len))

// Providers (the legacy one holds single-DES)
LAZY(OSSL_PROVIDER *, OSSL_PROVIDER_try_load, (OSSL_LIB_CTX *ctx, const char *name, int retain_fallbacks),
     (ctx, name, retain_fallbacks))
LAZY(int, OSSL_PROVIDER_available, (OSSL_LIB_CTX *ctx, const char *name), (ctx, name))

// Ciphers
LAZY(const EVP_CIPHER *, EVP_des_ede, (void), ())
LAZY(const EVP_CIPHER *, EVP_des_ede_cbc, (void), ())
LAZY(const EVP_CIPHER *, EVP_des_ede_ecb, (void), ())
LAZY(EVP_CIPHER *, EVP_CIPHER_fetch, (OSSL_LIB_CTX *ctx, const char *algorithm, const char *properties),
     (ctx, algorithm, properties))
LAZY_VOID(EVP_CIPHER_free, (EVP_CIPHER *cipher), (cipher))
LAZY(EVP_CIPHER_CTX *, EVP_CIPHER_CTX_new, (void), ())
LAZY_VOID(EVP_CIPHER_CTX_free, (EVP_CIPHER_CTX *c), (c))
LAZY(int, EVP_CIPHER_CTX_set_padding, (EVP_CIPHER_CTX *c, int pad), (c, pad))
LAZY(int, EVP_CipherInit_ex,
     (EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher, ENGINE *impl, const unsigned char *key, const unsigned char *iv,
      int enc),
     (ctx, cipher, impl, key, iv, enc))
LAZY(int, EVP_CipherUpdate, (EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl, const unsigned char *in, int inl),
     (ctx, out, outl, in, inl))
LAZY(int, EVP_CipherFinal_ex, (EVP_CIPHER_CTX *ctx, unsigned char *outm, int *outl), (ctx, outm, outl))

// Signatures
LAZY(const EVP_MD *, EVP_sha256, (void), ())
LAZY(EVP_MD_CTX *, EVP_MD_CTX_new, (void), ())
LAZY_VOID(EVP_MD_CTX_free, (EVP_MD_CTX *ctx), (ctx))
LAZY_VOID(EVP_PKEY_free, (EVP_PKEY *pkey), (pkey))
LAZY(int, EVP_DigestSignInit, (EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey),
     (ctx, pctx, type, e, pkey))
LAZY(int, EVP_DigestSignUpdate, (EVP_MD_CTX *ctx, const void *data, size_t dsize), (ctx, data, dsize))
LAZY(int, EVP_DigestSignFinal, (EVP_MD_CTX *ctx, unsigned char *sigret, size_t *siglen), (ctx, sigret, siglen))
LAZY(int, EVP_DigestVerifyInit,
     (EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey),
     (ctx, pctx, type, e, pkey))
LAZY(int, EVP_DigestVerifyUpdate, (EVP_MD_CTX *ctx, const void *data, size_t dsize), (ctx, data, dsize))
LAZY(int, EVP_DigestVerifyFinal, (EVP_MD_CTX *ctx, const unsigned char *sig, size_t siglen), (ctx, sig, siglen))

// Keys, certificates, PKCS #12 (the TMS identity)
LAZY(BIO *, BIO_new_mem_buf, (const void *buf, int len), (buf, len))
LAZY(int, BIO_free, (BIO *a), (a))
LAZY(EVP_PKEY *, PEM_read_bio_PUBKEY, (BIO *out, EVP_PKEY **x, pem_password_cb *cb, void *u), (out, x, cb, u))
LAZY(EVP_PKEY *, PEM_read_bio_PrivateKey, (BIO *out, EVP_PKEY **x, pem_password_cb *cb, void *u), (out, x, cb, u))
LAZY(X509 *, PEM_read_bio_X509, (BIO *out, X509 **x, pem_password_cb *cb, void *u), (out, x, cb, u))
LAZY(X509 *, d2i_X509, (X509 **a, const unsigned char **in, long len), (a, in, len))
LAZY_VOID(X509_free, (X509 *a), (a))
LAZY(int, X509_check_private_key, (const X509 *x509, const EVP_PKEY *pkey), (x509, pkey))
LAZY(PKCS12 *, PKCS12_create,
     (const char *pass, const char *name, EVP_PKEY *pkey, X509 *cert, STACK_OF(X509) *ca, int nid_key, int nid_cert,
      int iter, int mac_iter, int keytype),
     (pass, name, pkey, cert, ca, nid_key, nid_cert, iter, mac_iter, keytype))
LAZY(int, PKCS12_parse, (PKCS12 *p12, const char *pass, EVP_PKEY **pkey, X509 **cert, STACK_OF(X509) **ca),
     (p12, pass, pkey, cert, ca))
LAZY(int, PKCS12_verify_mac, (PKCS12 *p12, const char *pass, int passlen), (p12, pass, passlen))
LAZY(PKCS12 *, d2i_PKCS12, (PKCS12 **a, const unsigned char **in, long len), (a, in, len))
LAZY(int, i2d_PKCS12, (const PKCS12 *a, unsigned char **out), (a, out))
LAZY_VOID(PKCS12_free, (PKCS12 *a), (a))
