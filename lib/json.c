/* JSON files and JSON strings (see json.h). */
#include "json.h"

#include <string.h>

void tm_json_put_string(tm_buf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i, start = 0;

	tm_buf_putc(out, '"');
	for (i = 0; i < len; i++) {
		unsigned c = p[i];
		const char *esc = NULL;
		char u[7];
		size_t skip = 1;

		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\f':
			esc = "\\f";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0';
				u[4] = hex[c >> 4], u[5] = hex[c & 15], u[6] = 0;
				esc = u;
			} else if (c == 0xc2 && i + 1 < len && p[i + 1] >= 0x80 &&
				   p[i + 1] <= 0x9f) {
				/* U+0080..U+009F, encoded C2 80..C2 9F */
				unsigned cp = p[i + 1];

				u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0';
				u[4] = hex[cp >> 4], u[5] = hex[cp & 15], u[6] = 0;
				esc = u;
				skip = 2;
			}
		}
		if (esc) {
			tm_buf_put(out, s + start, i - start);
			tm_buf_puts(out, esc);
			i += skip - 1;
			start = i + 1;
		}
	}
	tm_buf_put(out, s + start, len - start);
	tm_buf_putc(out, '"');
}
