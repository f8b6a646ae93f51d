# The C API from other compilers, against the library installed into PREFIX (the fixture
# zarr.tests.c_install): a C99 program built by Debian's gcc with `pkg-config --cflags --libs
# zarr`, and a C++ program built by g++ with zarr.h alone; both with -Wall -Wextra -Werror, so
# the header compiles cleanly as C99 and as C++. Sanitized builds of the library need clang's
# ASan runtime preloaded (ASAN_RUNTIME; see CMakeLists.txt). Also: a C project using zarr::c
# through find_package(zarr), and the README's example. Any failing step fails the test.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "c api test: step failed (${rc}): ${ARGN}")
  endif()
endfunction()
execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig
    pkg-config --cflags --libs zarr
  OUTPUT_VARIABLE pc OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR pc STREQUAL "")
  message(FATAL_ERROR "c api test: pkg-config --cflags --libs zarr failed (${rc})")
endif()
message(STATUS "pkg-config --cflags --libs zarr: ${pc}")
separate_arguments(pc UNIX_COMMAND "${pc}")
set(warnings -Wall -Wextra -Werror -pedantic)
step(gcc -std=c99 ${warnings} ${SOURCE_DIR}/c_api.c ${pc} -pthread -Wl,-rpath,${PREFIX}/${LIBDIR} -o ${WORK_DIR}/c_api)
step(g++ -std=c++17 ${warnings} ${SOURCE_DIR}/cxx_api.cpp ${pc} -Wl,-rpath,${PREFIX}/${LIBDIR} -o ${WORK_DIR}/cxx_api)
set(env "")
if(ASAN_RUNTIME)
  set(env LD_PRELOAD=${ASAN_RUNTIME})
endif()
step(${CMAKE_COMMAND} -E env ${env} ${WORK_DIR}/c_api ${WORK_DIR})
step(${CMAKE_COMMAND} -E env ${env} ${WORK_DIR}/cxx_api)
# A C project (gcc) that finds the installed package with CMake and links zarr::c.
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/cmake_consumer -B ${WORK_DIR}/cmake_consumer -G Ninja -DCMAKE_C_COMPILER=gcc
  -DCMAKE_PREFIX_PATH=${PREFIX})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/cmake_consumer)
step(${CMAKE_COMMAND} -E env ${env} ${WORK_DIR}/cmake_consumer/c_consumer)

# The README's example ("From C and other languages"), as printed there.
file(READ ${README} readme)
string(FIND "${readme}" "## From C and other languages" at)
string(SUBSTRING "${readme}" ${at} -1 readme)
string(FIND "${readme}" "```c\n" begin)
math(EXPR begin "${begin} + 5")
string(SUBSTRING "${readme}" ${begin} -1 readme)
string(FIND "${readme}" "```" end)
string(SUBSTRING "${readme}" 0 ${end} example)
file(WRITE ${WORK_DIR}/readme.c "${example}")
step(gcc -std=c99 ${warnings} ${WORK_DIR}/readme.c ${pc} -Wl,-rpath,${PREFIX}/${LIBDIR} -o ${WORK_DIR}/readme)
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${env} ${WORK_DIR}/readme WORKING_DIRECTORY ${WORK_DIR}
  ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT err MATCHES "element 5: expected a value that float32 holds exactly, got 0.1")
  message(FATAL_ERROR "the README's C example: exit ${rc}, stderr: ${err}")
endif()
