/* checksum.c - frame content checksum: xxHash64 of each 64 KiB block seeded with the block's
 * index, summed. One block gives plain XXH64(data, 0); more blocks hash in parallel (a single
 * XXH64 over a whole frame is a serial chain that no GPU or thread team can split), and the seed
 * makes the sum depend on block order. */
#include "common/checksum.h"
#include "common/parallel.h"
#include "gpz.h"

#include <stdlib.h>
#include "common/xxh64.h"

/* Blocks per parallel task: 64 x 64 KiB = 4 MiB, enough to amortise scheduling. */
#define BLOCKS_PER_TASK 64

struct sum_job {
	const uint8_t *data;
	size_t size;
	uint64_t *partial;
};

uint64_t gpz_checksum_blocks(const void *vdata, size_t size, size_t first, size_t last)
{
	const uint8_t *data = vdata;
	uint64_t sum = 0;
	for (size_t b = first; b < last; b++) {
		size_t off = b * GPZ_CHECKSUM_BLOCK;
		size_t len = size - off < GPZ_CHECKSUM_BLOCK ? size - off : GPZ_CHECKSUM_BLOCK;
		sum += gpz_xxh64(data + off, len, (uint64_t)b);
	}
	return sum;
}

static size_t block_count(size_t size)
{
	return size == 0 ? 1 : (size + GPZ_CHECKSUM_BLOCK - 1) / GPZ_CHECKSUM_BLOCK;
}

static void sum_task(void *ctx, size_t t)
{
	struct sum_job *j = ctx;
	size_t nb = block_count(j->size);
	size_t first = t * BLOCKS_PER_TASK;
	size_t last = first + BLOCKS_PER_TASK < nb ? first + BLOCKS_PER_TASK : nb;
	j->partial[t] = gpz_checksum_blocks(j->data, j->size, first, last);
}

uint64_t gpz_checksum_threads(const void *data, size_t size, int nthreads)
{
	size_t nb = block_count(size);
	size_t ntasks = (nb + BLOCKS_PER_TASK - 1) / BLOCKS_PER_TASK;
	uint64_t *partial;
	struct sum_job j;
	uint64_t sum = 0;

	if (nthreads <= 1 || ntasks <= 1)
		return gpz_checksum_blocks(data, size, 0, nb);
	partial = malloc(ntasks * sizeof(*partial));
	if (!partial) /* fall back to one thread rather than fail a checksum */
		return gpz_checksum_blocks(data, size, 0, nb);
	j.data = data;
	j.size = size;
	j.partial = partial;
	gpz_parallel_for(nthreads, ntasks, sum_task, &j);
	for (size_t t = 0; t < ntasks; t++)
		sum += partial[t];
	free(partial);
	return sum;
}

uint64_t gpz_content_checksum(const void *data, size_t size)
{
	return gpz_checksum_threads(data, size, 1);
}
