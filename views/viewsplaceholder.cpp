// Placeholder so the views library has a translation unit until the first view lands.
namespace archipelago::views {
void viewsPlaceholder() {}
} // namespace archipelago::views
