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

#ifdef TM_WRAP_TLS
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
	(void)ctx;
	(void)out;
	return failed(minor);
}

tm_gss_status gss_display_status(tm_gss_status *minor, tm_gss_status status,
				 int type, void *mech, tm_gss_status *more,
				 void *out)
{
	(void)status;
	(void)type;
	(void)mech;
	(void)out;
	if (more)
		*more = 0;
	return failed(minor);
}

tm_gss_status gss_import_name(tm_gss_status *minor, void *in, void *type,
			      void *out)
{
	(void)in;
	(void)type;
	(void)out;
	return failed(minor);
}

tm_gss_status gss_indicate_mechs(tm_gss_status *minor, void *out)
{
	(void)out;
	return failed(minor);
}

tm_gss_status gss_init_sec_context(tm_gss_status *minor, void *cred, void *ctx,
				   void *name, void *mech, tm_gss_status flags,
				   tm_gss_status time, void *chan, void *in,
				   void *mech_out, void *out, void *ret_flags,
				   void *ret_time)
{
	(void)cred;
	(void)ctx;
	(void)name;
	(void)mech;
	(void)flags;
	(void)time;
	(void)chan;
	(void)in;
	(void)mech_out;
	(void)out;
	(void)ret_flags;
	(void)ret_time;
	return failed(minor);
}

/* Nothing was ever allocated: releasing succeeds. */
tm_gss_status gss_release_buffer(tm_gss_status *minor, void *buf)
{
	(void)buf;
	failed(minor);
	return 0;
}

tm_gss_status gss_release_name(tm_gss_status *minor, void *name)
{
	(void)name;
	failed(minor);
	return 0;
}

tm_gss_status gss_release_oid_set(tm_gss_status *minor, void *set)
{
	(void)set;
	failed(minor);
	return 0;
}
#endif
