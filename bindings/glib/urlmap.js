// Where gi-docgen's pages link other namespaces' symbols (voicenote-glib.toml's urlmap_file): their online references.
baseURLs = [
    ['GLib', 'https://docs.gtk.org/glib/'],
    ['GObject', 'https://docs.gtk.org/gobject/'],
    ['Gio', 'https://docs.gtk.org/gio/'],
];
