/** The tray icon: open Tidy, quick capture, quit. */
import { Menu, nativeImage, Tray } from 'electron';

// A 32×32 PNG (a white check on a teal rounded square), inline so it needs no file next to the bundle.
const ICON = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAABS0lEQVR42mMQ6WliGEiMLhAl0tN0UKSn6YdIT9N/KuMfULOjcDmghwaW4sI96A6IoqPlMByF7ICDA+CAg8gO+DEADviB7ID/A4SHuQOcF88eGAfITGj7f/bZk/8gAKLp7oCtt2/8RwZ4QoL6Dph7/jSK5eeeP6VfCLQe3odi+bPPn/6bzJlMHwfkbt+IYvm////++6xYQHkiNJ0zGYzxqQlZveQ/OkjZvJbybFi4awvcwKp9O7CqsVkw/f+7799QLK/dv4s65cDOu7dQDEZ3hMqUrv/XXr9EUTP19HHqFUTIIYDNEXvv30GRW3v9MvVLQpCF2Byx9PJ5FLGjjx/QrijG5ghkcO/92/86M/ppWxfgcsS337/+uyyZQ5/KCJsjYtavoG9tiOyI0t1bB6Y6JqZwGm2QkOqAAW+UDnizfMA7JgPeNRsUndMBwQCKvIyq5NOZvQAAAABJRU5ErkJggg==';

interface TrayActions {
  open(): void;
  capture(): void;
  quit(): void;
  /** The current quick-capture shortcut, shown in the menu. */
  shortcut(): string | null;
}

/** The tray, and `refresh` to call when the shortcut changes (the menu shows it). */
export function createTray(actions: TrayActions): { tray: Tray; refresh: () => void } {
  const tray = new Tray(nativeImage.createFromDataURL(ICON).resize({ width: 16, height: 16 }));
  tray.setToolTip('Tidy');
  const refresh = (): void => {
    const shortcut = actions.shortcut();
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: 'Open Tidy', click: actions.open },
        { label: shortcut ? `Quick capture (${shortcut})` : 'Quick capture', click: actions.capture },
        { type: 'separator' },
        { label: 'Quit Tidy', click: actions.quit },
      ]),
    );
  };
  refresh();
  tray.on('click', actions.open);
  return { tray, refresh };
}
