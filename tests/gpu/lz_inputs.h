/* lz_inputs.h - generated inputs shared by the GPU LZ and DEFLATE tests: random bytes, runs of
 * one byte, and text-like phrases (words from a small dictionary, now and then a whole earlier
 * line again), all from the caller's test_rand state; and a directory's files concatenated. */
#ifndef GPZ_LZ_INPUTS_H
#define GPZ_LZ_INPUTS_H

#include <algorithm>
#include <dirent.h>
#include <stdlib.h>
#include <stdint.h>
#include <string>
#include <vector>

extern "C" {
#include "testutil.h"
}

namespace lz_inputs {

inline uint32_t rnd(uint64_t *seed, uint32_t below)
{
	return (uint32_t)((test_rand(seed) >> 16) % below);
}

inline std::vector<uint8_t> random_bytes(uint64_t *seed, size_t n)
{
	std::vector<uint8_t> v(n);
	for (size_t i = 0; i < n; i++)
		v[i] = (uint8_t)(test_rand(seed) >> 40);
	return v;
}

inline std::vector<uint8_t> runs(uint64_t *seed, size_t n)
{
	std::vector<uint8_t> v;
	while (v.size() < n) {
		size_t len = 1 + rnd(seed, rnd(seed, 8) == 0 ? 70000 : 3000);
		uint8_t b = rnd(seed, 4) == 0 ? 0 : (uint8_t)rnd(seed, 256);
		v.insert(v.end(), std::min(len, n - v.size()), b);
	}
	return v;
}

inline std::vector<uint8_t> phrases(uint64_t *seed, size_t n)
{
	std::vector<std::string> dict;
	for (int i = 0; i < 400; i++) {
		std::string w;
		int len = 2 + rnd(seed, 9);
		for (int k = 0; k < len; k++)
			w += (char)('a' + rnd(seed, 26));
		dict.push_back(w);
	}
	std::vector<uint8_t> v;
	std::vector<size_t> line_starts;
	while (v.size() < n) {
		if (line_starts.size() > 2 && rnd(seed, 6) == 0) {
			size_t s = line_starts[rnd(seed, (uint32_t)line_starts.size() - 1)];
			size_t e = s;
			while (e < v.size() && v[e] != '\n')
				e++;
			std::vector<uint8_t> copy(v.begin() + s, v.begin() + e + (e < v.size()));
			v.insert(v.end(), copy.begin(), copy.end());
		} else {
			line_starts.push_back(v.size());
			int words = 3 + rnd(seed, 12);
			for (int k = 0; k < words; k++) {
				const std::string &w = dict[rnd(seed, rnd(seed, 3) ? 40 : 400)];
				v.insert(v.end(), w.begin(), w.end());
				v.push_back(k + 1 < words ? ' ' : '\n');
			}
		}
	}
	v.resize(n);
	return v;
}

/* All regular files of dir (sorted by name), concatenated; empty when absent. */
inline std::vector<uint8_t> concat_dir(const std::string &dir)
{
	std::vector<uint8_t> v;
	std::vector<std::string> names;
	DIR *d = opendir(dir.c_str());
	if (!d)
		return v;
	while (struct dirent *e = readdir(d))
		if (e->d_name[0] != '.')
			names.push_back(e->d_name);
	closedir(d);
	std::sort(names.begin(), names.end());
	for (const std::string &nm : names) {
		size_t size = 0;
		uint8_t *p = test_read_file((dir + "/" + nm).c_str(), &size);
		if (p) {
			v.insert(v.end(), p, p + size);
			free(p);
		}
	}
	return v;
}

} // namespace lz_inputs

#endif
