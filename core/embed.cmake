# Turns a text file into a C++ source defining archipelago::core::detail::kBuiltinCatalogJson.
file(READ ${IN} content)
string(LENGTH "${content}" len)
# Raw string literals are limited in length by some compilers: emit chunks.
set(out "// Generated from resources/catalog.json — do not edit.\n#include <string_view>\nnamespace archipelago::core::detail {\nstatic const char kData[] = \n")
set(pos 0)
while(pos LESS len)
  string(SUBSTRING "${content}" ${pos} 8000 chunk)
  string(APPEND out "R\"arch(${chunk})arch\"\n")
  math(EXPR pos "${pos} + 8000")
endwhile()
string(APPEND out ";\nextern const std::string_view kBuiltinCatalogJson{kData, sizeof(kData) - 1};\n}\n")
file(WRITE ${OUT} "${out}")
