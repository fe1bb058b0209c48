/* frame_plan.c - decide a frame's type and layout from its histogram (shared by the CPU and GPU
 * backends, so both write the same bytes), and fill its header and codebook. */
#include "container/frame.h"
#include "common/bits.h"

#include <stdlib.h>
#include <string.h>

/* Lengths, encoder table and payload size of a Huffman code for the counts. */
static gpz_result plan_codes(struct gpz_frame_plan *pl, const uint32_t *counts,
                             const uint8_t *lengths)
{
	uint32_t *code = malloc(pl->alphabet * sizeof(uint32_t));

	pl->len = malloc(pl->alphabet);
	pl->table = malloc(pl->alphabet * sizeof(uint32_t));
	if (!pl->len || !pl->table || !code) {
		free(code);
		return GPZ_ERR_NOMEM;
	}
	if (lengths) {
		memcpy(pl->len, lengths, pl->alphabet);
		pl->max_len = 0;
		for (uint32_t s = 0; s < pl->alphabet; s++)
			pl->max_len = lengths[s] > pl->max_len ? lengths[s] : pl->max_len;
	} else {
		pl->max_len = gpz_code_lengths(counts, pl->alphabet, GPZ_MAX_CODE_LEN, pl->len);
	}
	if (pl->max_len < 0) {
		free(code);
		return GPZ_ERR_NOMEM;
	}
	gpz_canonical_codes(pl->len, pl->alphabet, code);
	gpz_encoder_table(pl->len, code, pl->alphabet, pl->table);
	free(code);
	pl->bits = gpz_coded_bits(counts, pl->len, pl->alphabet);
	return GPZ_OK;
}

static gpz_result plan_simple(struct gpz_frame_plan *pl, gpz_frame_type type, uint32_t value)
{
	free(pl->len);
	free(pl->table);
	pl->len = NULL;
	pl->table = NULL;
	gpz_frame_set_simple(pl, type);
	pl->head = malloc(pl->head_bytes);
	if (!pl->head)
		return GPZ_ERR_NOMEM;
	gpz_frame_put_header(pl->head, pl, type == GPZ_FRAME_CONSTANT ? value : 0, 0);
	gpz_frame_set_layout(pl);
	return GPZ_OK;
}

gpz_result gpz_frame_plan_make(struct gpz_frame_plan *pl, const gpz_params *p,
                               const uint32_t *counts, uint32_t alphabet, size_t n,
                               const uint8_t *lengths)
{
	uint32_t used = 0;
	size_t cb_bytes;
	uint8_t *cb;
	gpz_result r;

	memset(pl, 0, sizeof(*pl));
	pl->w = p->symbol_bytes;
	pl->chunk_log = p->chunk_log;
	pl->n = n;
	pl->alphabet = alphabet;
	for (uint32_t s = 0; s < alphabet; s++)
		used += counts[s] != 0;
	if (used == 1) /* the one symbol present is the largest */
		return plan_simple(pl, GPZ_FRAME_CONSTANT, alphabet - 1);
	r = plan_codes(pl, counts, lengths);
	if (r != GPZ_OK)
		return r;
	pl->head = malloc(GPZ_FRAME_HEADER_SIZE + gpz_lengths_bound(alphabet));
	if (!pl->head)
		return GPZ_ERR_NOMEM;
	cb = pl->head + GPZ_FRAME_HEADER_SIZE;
	cb_bytes = gpz_lengths_write(pl->len, alphabet, cb);
	if (!gpz_frame_set_huffman(pl, cb_bytes, p->huff_lanes)) {
		free(pl->head);
		pl->head = NULL;
		return plan_simple(pl, GPZ_FRAME_STORED, 0);
	}
	gpz_frame_put_header(pl->head, pl, alphabet, (uint32_t)cb_bytes);
	gpz_frame_set_layout(pl);
	return GPZ_OK;
}

void gpz_frame_plan_set_payload(struct gpz_frame_plan *pl, size_t payload)
{
	pl->payload = payload;
	gpz_store_le64(pl->head + 24, payload);
	gpz_frame_set_layout(pl);
}

void gpz_frame_plan_free(struct gpz_frame_plan *pl)
{
	free(pl->len);
	free(pl->table);
	free(pl->head);
	memset(pl, 0, sizeof(*pl));
}
