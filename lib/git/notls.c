/*
 * threadmind never uses the network, yet libgit2 built with mbedTLS (as
 * Debian's is) sets up HTTPS and SSH in git_libgit2_init.  This file is
 * linked into the executables only, not into libthreadmind.a, and keeps
 * that set-up from costing every process that opens a repository.
 *
 * Dynamic build: libgit2's TLS set-up parses the whole system CA bundle:
 * 54 M instructions, 83% of a command's start-up (docs/PERFORMANCE.md).
 * The executable's definitions below interpose mbedTLS's loaders of
 * trusted certificates and load none.  An HTTPS connection would then
 * trust no certificate authority and fail to verify: never a silent
 * trust.  With a libgit2 built on OpenSSL, nothing calls them.
 *
 * STATIC_GIT build (TM_WRAP_TLS): the linker's --wrap sends libgit2's
 * calls of its own TLS and SSH set-up here (see below), so neither the CA
 * bundle nor the rest of the set-up is ever touched.
 *
 * Every function here stands in for another library's and ignores some of
 * that function's parameters by design.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#ifndef TM_WRAP_TLS
struct mbedtls_x509_crt;

int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain,
				const char *path);
int mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain,
				const char *path);

/* 0: parsed, no certificate added. */
int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain,
				const char *path)
{
	return 0;
}

int mbedtls_x509_crt_parse_path(struct mbedtls_x509_crt *chain,
				const char *path)
{
	return 0;
}
#else
#include <git2/errors.h>

/*
 * The rest of git_libgit2_init's network set-up, skipped: mbedTLS's
 * (its HAVEGE entropy gathering, 8,192 clock reads, the CTR-DRBG seeded
 * from getrandom, the CA bundle stat'ed: 1.4 M instructions) and
 * libssh2's (libssh2_init, then OpenSSL's: 1.0 M), 2.4 M instructions in
 * all, 7% of a post-commit hook at 10,000 threads (docs/PERFORMANCE.md).
 * Nothing then runs on what was not set up: opening a TLS stream, or
 * setting the certificate locations, fails with an error that says why;
 * libssh2 sets itself up on first use (libssh2_session_init).
 */
struct git_stream;

int __wrap_git_mbedtls_stream_global_init(void);
int __wrap_git_transport_ssh_global_init(void);
int __wrap_git_mbedtls_stream_new(struct git_stream **out, const char *host,
				  const char *port);
int __wrap_git_mbedtls_stream_wrap(struct git_stream **out,
				   struct git_stream *in, const char *host);
int __wrap_git_mbedtls__set_cert_location(const char *file, const char *path);

int __wrap_git_mbedtls_stream_global_init(void)
{
	return 0;
}

int __wrap_git_transport_ssh_global_init(void)
{
	return 0;
}

static int no_network(void)
{
	git_error_set_str(GIT_ERROR_SSL,
			  "threadmind does not use the network: TLS is not "
			  "set up in this process");
	return -1;
}

int __wrap_git_mbedtls_stream_new(struct git_stream **out, const char *host,
				  const char *port)
{
	*out = NULL;
	return no_network();
}

int __wrap_git_mbedtls_stream_wrap(struct git_stream **out,
				   struct git_stream *in, const char *host)
{
	*out = NULL;
	return no_network();
}

int __wrap_git_mbedtls__set_cert_location(const char *file, const char *path)
{
	return no_network();
}

/*
 * The statically linked executables also stand in for GSSAPI, which
 * Debian's libgit2 calls only to authenticate HTTP with Kerberos
 * (auth_negotiate.c): linking libgssapi_krb5 loaded 7 shared libraries
 * (krb5, k5crypto, com_err, krb5support, keyutils, resolv) into every
 * process, 386 k of the merge driver's 804 k start-up instructions and a
 * third of its wall time against git merge-file (docs/PERFORMANCE.md).
 * Every call fails (GSS_S_FAILURE): Negotiate is never offered.
 */
typedef unsigned int tm_gss_status;

#define TM_GSS_FAILURE (13u << 16)

void *GSS_C_NT_HOSTBASED_SERVICE;

tm_gss_status gss_delete_sec_context(tm_gss_status *minor, void *ctx,
				     void *out);
tm_gss_status gss_display_status(tm_gss_status *minor, tm_gss_status status,
				 int type, void *mech, tm_gss_status *more,
				 void *out);
tm_gss_status gss_import_name(tm_gss_status *minor, void *in, void *type,
			      void *out);
tm_gss_status gss_indicate_mechs(tm_gss_status *minor, void *out);
tm_gss_status gss_init_sec_context(tm_gss_status *minor, void *cred, void *ctx,
				   void *name, void *mech, tm_gss_status flags,
				   tm_gss_status time, void *chan, void *in,
				   void *mech_out, void *out, void *ret_flags,
				   void *ret_time);
tm_gss_status gss_release_buffer(tm_gss_status *minor, void *buf);
tm_gss_status gss_release_name(tm_gss_status *minor, void *name);
tm_gss_status gss_release_oid_set(tm_gss_status *minor, void *set);

static tm_gss_status failed(tm_gss_status *minor)
{
	if (minor)
		*minor = 0;
	return TM_GSS_FAILURE;
}

tm_gss_status gss_delete_sec_context(tm_gss_status *minor, void *ctx, void *out)
{
	return failed(minor);
}

tm_gss_status gss_display_status(tm_gss_status *minor, tm_gss_status status,
				 int type, void *mech, tm_gss_status *more,
				 void *out)
{
	if (more)
		*more = 0;
	return failed(minor);
}

tm_gss_status gss_import_name(tm_gss_status *minor, void *in, void *type,
			      void *out)
{
	return failed(minor);
}

tm_gss_status gss_indicate_mechs(tm_gss_status *minor, void *out)
{
	return failed(minor);
}

tm_gss_status gss_init_sec_context(tm_gss_status *minor, void *cred, void *ctx,
				   void *name, void *mech, tm_gss_status flags,
				   tm_gss_status time, void *chan, void *in,
				   void *mech_out, void *out, void *ret_flags,
				   void *ret_time)
{
	return failed(minor);
}

/* Nothing was ever allocated: releasing succeeds. */
tm_gss_status gss_release_buffer(tm_gss_status *minor, void *buf)
{
	failed(minor);
	return 0;
}

tm_gss_status gss_release_name(tm_gss_status *minor, void *name)
{
	failed(minor);
	return 0;
}

tm_gss_status gss_release_oid_set(tm_gss_status *minor, void *set)
{
	failed(minor);
	return 0;
}
#endif
