/** The reference callback receiver's settings (`npm run receiver`), declared like the gateway's. */
import { ConfigError, loadSettings, section, setting, types, type ConfigOf } from '../config/define.js';

export const RECEIVER_SETTINGS = {
  receiver: section('The reference callback receiver (`npm run receiver`)', {
    host: setting({ env: 'RECEIVER_HOST', type: types.text, default: '127.0.0.1', doc: 'listen address' }),
    port: setting({ env: 'RECEIVER_PORT', type: types.port, default: 9090, doc: 'listen port' }),
    dataDir: setting({
      env: 'RECEIVER_DATA_DIR',
      type: types.path,
      default: './data/receiver',
      doc: '`receiver.sqlite`: the callbacks received',
    }),
    secret: setting({
      env: 'CALLBACK_SECRET',
      type: types.webhookSecret,
      defaultDoc: 'none: required unless `RECEIVER_ALLOW_UNSIGNED=true`',
      doc: "the gateway's signing secret (`whsec_` + base64, as the gateway's); a callback whose signature does not verify is refused",
    }),
    previousSecret: setting({
      env: 'CALLBACK_SECRET_PREVIOUS',
      type: types.webhookSecret,
      defaultDoc: 'none',
      doc: 'while rotating the key: the other one; a callback signed with either key is accepted',
    }),
    allowUnsigned: setting({
      env: 'RECEIVER_ALLOW_UNSIGNED',
      type: types.bool,
      default: false,
      doc: 'accept callbacks without signature headers (test setups only; warned at start)',
    }),
    toleranceSeconds: setting({
      env: 'RECEIVER_TOLERANCE_SECONDS',
      type: types.positiveInt,
      default: 300,
      doc: 'how far a callback\'s `webhook-timestamp` may be from now',
    }),
  }),
};

export type ReceiverConfig = ConfigOf<typeof RECEIVER_SETTINGS>['receiver'];

export function loadReceiverConfig(source: NodeJS.ProcessEnv): ReceiverConfig {
  const { receiver } = loadSettings(RECEIVER_SETTINGS, source);
  if (receiver.secret === undefined && !receiver.allowUnsigned) {
    throw new ConfigError(['CALLBACK_SECRET: required unless RECEIVER_ALLOW_UNSIGNED=true']);
  }
  return receiver;
}
