import type { CommandContext } from '../command-context.js';
import { handleCommand } from '../handle-command.js';
import { BLOG_SETTINGS_STREAM, type BlogSettings } from '../../contracts/blog/events.js';
import { blogSettingsDecider } from './settings-decider.js';

export async function changeBlogSettings(ctx: CommandContext, settings: BlogSettings): Promise<void> {
  await handleCommand(ctx, {
    stream: BLOG_SETTINGS_STREAM,
    decider: blogSettingsDecider,
    command: { type: 'ChangeBlogSettings', data: settings },
  });
}
