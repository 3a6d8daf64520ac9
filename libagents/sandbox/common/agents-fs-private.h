/* agents-fs-private.h - kept for the library's own files */

#pragma once

#include "agents-fs.h"
