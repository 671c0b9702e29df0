#include "model/evaluation.h"

namespace archipelago::core {

const char* toString(LinkClass c)
{
    switch (c) {
    case LinkClass::ScaleUp:
        return "scale-up";
    case LinkClass::Leaf:
        return "leaf";
    case LinkClass::Spine:
        return "spine";
    case LinkClass::Core:
        return "core";
    case LinkClass::Dci:
        return "dci";
    }
    return "?";
}

} // namespace archipelago::core
