/*
 * threadmind never uses the network, yet libgit2 built with mbedTLS (as
 * Debian's is) parses the whole system CA bundle in git_libgit2_init:
 * 54 M instructions, 83% of a command's start-up (docs/PERFORMANCE.md).
 * This file is linked into the executables only, not into libthreadmind.a:
 * its two functions take the place of mbedTLS's loaders of trusted
 * certificates and load none.  An HTTPS connection would then trust no
 * certificate authority and fail to verify: never a silent trust.
 *
 * Dynamic build: the executable's definitions interpose the shared
 * library's.  STATIC_GIT build (TM_WRAP_TLS): the linker's
 * --wrap=mbedtls_x509_crt_parse_file (and _path) sends libgit2's calls
 * here.  With a libgit2 built on OpenSSL, nothing calls them.
 */
struct mbedtls_x509_crt;

#ifdef TM_WRAP_TLS
#define TM_CA_FILE __wrap_mbedtls_x509_crt_parse_file
#define TM_CA_PATH __wrap_mbedtls_x509_crt_parse_path
#else
#define TM_CA_FILE mbedtls_x509_crt_parse_file
#define TM_CA_PATH mbedtls_x509_crt_parse_path
#endif

int TM_CA_FILE(struct mbedtls_x509_crt *chain, const char *path);
int TM_CA_PATH(struct mbedtls_x509_crt *chain, const char *path);

/* 0: parsed, no certificate added. */
int TM_CA_FILE(struct mbedtls_x509_crt *chain, const char *path)
{
	(void)chain;
	(void)path;
	return 0;
}

int TM_CA_PATH(struct mbedtls_x509_crt *chain, const char *path)
{
	(void)chain;
	(void)path;
	return 0;
}
