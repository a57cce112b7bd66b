# Writes ${OUT} with the commit and dirty flag of the source tree; run on every build, but the file
# is rewritten only when its text changes, so nothing recompiles unless the commit does.
execute_process(COMMAND git -C "${SRC}" rev-parse HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no
                OUTPUT_VARIABLE changes ERROR_QUIET)
if(changes STREQUAL "")
  set(dirty false)
else()
  set(dirty true)
endif()
set(text "#pragma once\n#define NBODY_GIT_COMMIT \"${commit}\"\n#define NBODY_GIT_DIRTY ${dirty}\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
