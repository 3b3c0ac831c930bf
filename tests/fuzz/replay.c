/* replay.c — a main() for builds without libFuzzer: feeds every file of the
 * corpus directories given on the command line to the harness, as TAP. */
#include "fuzz.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0, used = 0, got;

	if (!f)
		return NULL;
	do {
		if (used == cap) {
			size_t want = cap ? cap * 2 : 4096;
			unsigned char *bigger = realloc(buf, want);
			if (!bigger) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = bigger;
			cap = want;
		}
		got = fread(buf + used, 1, cap - used, f);
		used += got;
	} while (got > 0);
	fclose(f);
	*len = used;
	return buf;
}

int main(int argc, char **argv)
{
	char **files = NULL;
	size_t count = 0, cap = 0;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		if (!d) {
			fprintf(stderr, "%s: cannot open the corpus directory\n", argv[i]);
			return 2;
		}
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			size_t n = strlen(argv[i]) + strlen(e->d_name) + 2;
			char *path = malloc(n);
			if (!path)
				return 1;
			snprintf(path, n, "%s/%s", argv[i], e->d_name);
			struct stat st;
			if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
				free(path);
				continue;
			}
			if (count == cap) {
				cap = cap ? cap * 2 : 64;
				char **bigger = realloc(files, cap * sizeof *files);
				if (!bigger)
					return 1;
				files = bigger;
			}
			files[count++] = path;
		}
		closedir(d);
	}
	qsort(files, count, sizeof *files, cmp_str);
	printf("1..%zu\n", count);
	fflush(stdout);
	for (size_t i = 0; i < count; i++) {
		size_t len = 0;
		unsigned char *data = slurp(files[i], &len);
		/* Name it "harness/file": the corpus directory's last component. */
		const char *name = files[i];
		const char *slash = strrchr(files[i], '/');
		if (slash) {
			const char *p = slash;
			while (p > files[i] && p[-1] != '/')
				p--;
			name = p;
		}
		if (!data) {
			printf("not ok %zu - corpus/%s (unreadable)\n", i + 1, name);
			bad = 1;
			continue;
		}
		LLVMFuzzerTestOneInput(data, len);
		printf("ok %zu - corpus/%s\n", i + 1, name);
		fflush(stdout);
		free(data);
		free(files[i]);
	}
	free(files);
	return bad;
}
