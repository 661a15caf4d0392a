import { ValidationError } from '../../infra/errors.js';
import type { Decider, DomainCommand } from '../decider.js';
import type { LibraryConfigured } from '../../contracts/directory/events.js';
import { LIMITS, UNCONFIGURED_LIBRARY, type LibrarySettings } from '../../contracts/directory/fields.js';
import { isBrandColor, isPlan, requireText } from '../../contracts/directory/values.js';
import { isHttpUrl } from '../../infra/net/origin.js';
import { definedKeys } from '../defined-keys.js';

export interface LibraryState {
  settings: LibrarySettings | null;
}

/** Sets the library's name, plan, brand color and proxy prefix; keys absent keep their value. */
export type ConfigureLibrary = DomainCommand<'ConfigureLibrary', Partial<LibrarySettings>>;
export type LibraryCommand = ConfigureLibrary;

function check(settings: LibrarySettings): void {
  requireText(settings.name, 'name', LIMITS.libraryName);
  if (!isPlan(settings.plan)) throw ValidationError.field('plan', 'plan must be one of basic, plus, trial.');
  if (!isBrandColor(settings.brand_color))
    throw ValidationError.field('brand_color', 'Must be a hex color such as #0b5394.');
  if (settings.proxy_prefix !== '' && !isHttpUrl(settings.proxy_prefix)) {
    throw ValidationError.field('proxy_prefix', 'Must be an http(s) URL prefix, or empty for no proxy.');
  }
}

function configure({ data }: ConfigureLibrary, state: LibraryState): LibraryConfigured[] {
  const settings = { ...UNCONFIGURED_LIBRARY, ...state.settings, ...definedKeys(data) };
  check(settings);
  return [{ type: 'LibraryConfigured', data: settings }];
}

/** The library is one configuration stream: the directory serves a single library. */
export const libraryDecider: Decider<LibraryState, LibraryCommand, LibraryConfigured> = {
  initialState: () => ({ settings: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'LibraryConfigured':
        return { settings: event.data };
      default: {
        const _exhaustive: never = event.type;
        return state;
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ConfigureLibrary':
        return configure(command, state);
      default: {
        const _exhaustive: never = command.type;
        return [];
      }
    }
  },
};
