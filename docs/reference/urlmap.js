// A map between namespaces and the base URLs of their documentation
baseURLs = [
    [ 'GLib', 'https://docs.gtk.org/glib/' ],
    [ 'GObject', 'https://docs.gtk.org/gobject/' ],
    [ 'Gio', 'https://docs.gtk.org/gio/' ],
    [ 'Json', 'https://gnome.pages.gitlab.gnome.org/json-glib/' ],
]
