/* hdf5_mpi_test.c FILE - parallel HDF5 (MPI-IO) writing one dataset through the gpz filter
 * collectively, then every rank reading all of it back.
 *
 * Run under mpirun with HDF5_PLUGIN_PATH naming the plugin built against this parallel HDF5.
 * Each rank writes its own rows of a chunked uint16 dataset (quantization-code-like values)
 * with collective transfers (HDF5 needs them for filtered datasets); after closing, every rank
 * reopens the file, checks that filter 310 is in the dataset's pipeline with 2-byte symbols
 * recorded, reads the whole dataset and compares it with what all ranks wrote. Exit status 0
 * on every rank when all is well. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define FILTER 310
#define ROWS_PER_RANK 512
#define COLS 1000

static unsigned short value(hsize_t r, hsize_t c)
{
	unsigned long long h = (r * 1000003ull + c) * 0x9e3779b97f4a7c15ull;
	return (unsigned short)((h >> 60) == 0 ? 32768 + (h >> 40) % 64 : 32768); /* runs, a spread */
}

static int fail(int rank, const char *what)
{
	fprintf(stderr, "rank %d: FAIL: %s\n", rank, what);
	MPI_Abort(MPI_COMM_WORLD, 1);
	return 1;
}

static int write_file(const char *path, int rank, int size)
{
	hsize_t dims[2] = { (hsize_t)size * ROWS_PER_RANK, COLS }, chunk[2] = { 256, 500 };
	hsize_t start[2] = { (hsize_t)rank * ROWS_PER_RANK, 0 }, count[2] = { ROWS_PER_RANK, COLS };
	unsigned short *buf = malloc(sizeof(*buf) * ROWS_PER_RANK * COLS);
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hid_t dxpl = H5Pcreate(H5P_DATASET_XFER), file, space, mem, dset;

	for (hsize_t r = 0; r < ROWS_PER_RANK; r++)
		for (hsize_t c = 0; c < COLS; c++)
			buf[r * COLS + c] = value(start[0] + r, c);
	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
	if ((file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0)
		return fail(rank, "create the file");
	space = H5Screate_simple(2, dims, NULL);
	H5Pset_chunk(dcpl, 2, chunk);
	if (H5Pset_filter(dcpl, FILTER, H5Z_FLAG_MANDATORY, 0, NULL) < 0)
		return fail(rank, "set the gpz filter");
	dset = H5Dcreate2(file, "codes", H5T_NATIVE_USHORT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (dset < 0)
		return fail(rank, "create the filtered dataset (is the plugin on HDF5_PLUGIN_PATH?)");
	H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
	mem = H5Screate_simple(2, count, NULL);
	H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
	if (H5Dwrite(dset, H5T_NATIVE_USHORT, mem, space, dxpl, buf) < 0)
		return fail(rank, "collective write");
	H5Sclose(mem);
	H5Dclose(dset);
	H5Sclose(space);
	H5Pclose(dcpl);
	H5Pclose(dxpl);
	H5Pclose(fapl);
	H5Fclose(file);
	free(buf);
	return 0;
}

static int read_file(const char *path, int rank, int size)
{
	hsize_t rows = (hsize_t)size * ROWS_PER_RANK;
	unsigned short *buf = malloc(sizeof(*buf) * rows * COLS);
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), file, dset, dcpl;
	unsigned flags = 0, cd[8];
	size_t ncd = 8;
	hsize_t stored;

	H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
	if ((file = H5Fopen(path, H5F_ACC_RDONLY, fapl)) < 0 ||
	    (dset = H5Dopen2(file, "codes", H5P_DEFAULT)) < 0)
		return fail(rank, "reopen");
	dcpl = H5Dget_create_plist(dset);
	if (H5Pget_filter_by_id2(dcpl, FILTER, &flags, &ncd, cd, 0, NULL, NULL) < 0 || ncd != 4 ||
	    cd[3] != 2)
		return fail(rank, "filter 310 with 2-byte symbols in the pipeline");
	stored = H5Dget_storage_size(dset);
	if (stored == 0 || stored > rows * COLS * 2 / 4)
		return fail(rank, "the dataset is stored compressed");
	if (H5Dread(dset, H5T_NATIVE_USHORT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
		return fail(rank, "read");
	for (hsize_t r = 0; r < rows; r++)
		for (hsize_t c = 0; c < COLS; c++)
			if (buf[r * COLS + c] != value(r, c))
				return fail(rank, "the data read back differs");
	printf("rank %d of %d: %llu rows read back equal, %llu bytes stored of %llu\n", rank, size,
	       (unsigned long long)rows, (unsigned long long)stored,
	       (unsigned long long)(rows * COLS * 2));
	H5Pclose(dcpl);
	H5Dclose(dset);
	H5Fclose(file);
	H5Pclose(fapl);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int rank, size, rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 2)
		return fail(rank, "usage: hdf5_mpi_test FILE");
	rc = write_file(argv[1], rank, size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rc == 0)
		rc = read_file(argv[1], rank, size);
	MPI_Finalize();
	return rc;
}
