// Where gi-docgen's pages link other namespaces' symbols (voicenote-gtk.toml's urlmap_file): voicenote-glib's
// reference beside this one (OUT/doc/voicenote-glib-1), the others online.
baseURLs = [
    ['Voicenote', '../voicenote-glib-1/'],
    ['GLib', 'https://docs.gtk.org/glib/'],
    ['GObject', 'https://docs.gtk.org/gobject/'],
    ['Gio', 'https://docs.gtk.org/gio/'],
    ['Gdk', 'https://docs.gtk.org/gdk4/'],
    ['Gsk', 'https://docs.gtk.org/gsk4/'],
    ['Gtk', 'https://docs.gtk.org/gtk4/'],
    ['Pango', 'https://docs.gtk.org/Pango/'],
    ['Graphene', 'https://ebassi.github.io/graphene/docs/'],
];
