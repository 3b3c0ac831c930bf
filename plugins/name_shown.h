/* name_shown.h — a buffer or pool name as the plugins' messages quote it: whole
 * up to 120 bytes, else its first 60 and "…(N bytes)", as the library's do. */
#ifndef USMP_PLUGINS_NAME_SHOWN_H
#define USMP_PLUGINS_NAME_SHOWN_H
#include <stdio.h>
#include <string.h>

/* Room for a shortened name: 60 bytes, the mark and its count. */
#define NAME_SHOWN_MAX 96

/* `name` itself (NULL: "?") when it has at most 120 bytes, else its first
 * 60 bytes (fewer rather than split a UTF-8 sequence) and "…(N bytes)" in
 * out: so a message formatted into a fixed buffer keeps what follows the
 * name (a plugin cannot call the library's message formatter). */
static inline const char *name_shown(const char *name,
                                     char out[NAME_SHOWN_MAX])
{
	if (!name)
		return "?";
	size_t len = strlen(name), cut = 60;
	if (len <= 120)
		return name;
	for (int k = 0; k < 3 && cut > 0 &&
	                ((unsigned char)name[cut] & 0xc0) == 0x80; k++)
		cut--;
	snprintf(out, NAME_SHOWN_MAX, "%.*s\xe2\x80\xa6(%zu bytes)", (int)cut,
	         name, len);
	return out;
}

#endif
