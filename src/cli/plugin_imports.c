/* plugin_imports.c — the functions of libusmp a plugin file imports, read
 * from its ELF dynamic symbol table: a plugin may call none of them. */
#include "cli.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether [off, off + len) lies within a file of `size` bytes, and off is
 * aligned for the 64-bit ELF tables read there (a hostile file may say
 * otherwise: such a file is not read). */
static int within(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off && off % 8 == 0;
}

/* The undefined usmp_* symbols of the dynamic symbol table in `m`, joined
 * by ", " into out; their count. */
static unsigned imports_of(const unsigned char *m, uint64_t size, char *out,
                           size_t n)
{
	const Elf64_Ehdr *eh = (const void *)m;
	unsigned count = 0;
	size_t used = 0;
	if (!within(0, sizeof *eh, size) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !within(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size))
		return 0; /* not what this reads: the loader says the rest */
	const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
	for (unsigned s = 0; s < eh->e_shnum; s++) {
		if (sh[s].sh_type != SHT_DYNSYM || sh[s].sh_link >= eh->e_shnum ||
		    !within(sh[s].sh_offset, sh[s].sh_size, size))
			continue;
		const Elf64_Shdr *str = &sh[sh[s].sh_link];
		if (str->sh_offset > size || str->sh_size > size - str->sh_offset)
			continue;
		const Elf64_Sym *sym = (const void *)(m + sh[s].sh_offset);
		const char *names = (const char *)(m + str->sh_offset);
		for (uint64_t k = 0; k < sh[s].sh_size / sizeof *sym; k++) {
			if (sym[k].st_shndx != SHN_UNDEF ||
			    sym[k].st_name >= str->sh_size)
				continue;
			const char *name = names + sym[k].st_name;
			size_t len = strnlen(name, str->sh_size - sym[k].st_name);
			if (len == str->sh_size - sym[k].st_name ||
			    strncmp(name, "usmp_", 5))
				continue;
			int w = snprintf(out + used, n - used, "%s%s",
			                 count ? ", " : "", name);
			if (w > 0 && (size_t)w < n - used)
				used += (size_t)w;
			count++;
		}
	}
	return count;
}

unsigned cli_plugin_imports(const char *path, char *out, size_t n)
{
	struct stat st;
	unsigned count = 0;
	if (n)
		out[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		               fd, 0);
		if (m != MAP_FAILED) {
			count = imports_of(m, (uint64_t)st.st_size, out, n);
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
	return count;
}
