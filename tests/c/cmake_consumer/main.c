/* Links zarr::c from the installed CMake package; prints the library's version. */
#include <stdio.h>
#include <string.h>
#include <zarr.h>

int main(void) {
  zarr_store* s = NULL;
  if (zarr_store_open("memory:", NULL, &s) != ZARR_OK) return 1;
  zarr_store_free(s);
  printf("c_consumer: zarr %s\n", zarr_version());
  return strcmp(zarr_version(), "") == 0;
}
