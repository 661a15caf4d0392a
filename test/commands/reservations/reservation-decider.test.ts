import t from 'tap';
import {
  KeyHeldError,
  reservationDecider,
  type ReservationEvent,
} from '../../../commands/reservations/reservation-decider.js';
import { deciderSpec } from '../../decider-spec.js';

const spec = deciderSpec(reservationDecider);
const key = 'site-slug-main';
const reserved = (owner: string): ReservationEvent => ({ type: 'KeyReserved', data: { key, owner } });
const released = (owner: string): ReservationEvent => ({ type: 'KeyReleased', data: { key, owner } });
const reserve = (owner: string, abandonedBy: string | null = null) => ({
  type: 'ReserveKey' as const,
  data: { key, owner, abandonedBy },
});
const release = (owner: string) => ({ type: 'ReleaseKey' as const, data: { key, owner } });

t.test('a free key is reserved; a held one is refused', async (t) => {
  spec
    .given([])
    .when(reserve('site-1'))
    .then(t, [reserved('site-1')]);
  spec
    .given([reserved('site-1')])
    .when(reserve('site-2'))
    .thenThrows(t, KeyHeldError);
  spec
    .given([reserved('site-1')])
    .when(reserve('site-1'))
    .then(t, [], 'its holder reserving again changes nothing');
});

t.test('a released key may be reserved again', async (t) => {
  spec
    .given([reserved('site-1')])
    .when(release('site-1'))
    .then(t, [released('site-1')]);
  spec
    .given([reserved('site-1'), released('site-1')])
    .when(reserve('site-2'))
    .then(t, [reserved('site-2')]);
  spec
    .given([reserved('site-1')])
    .when(release('site-2'))
    .then(t, [], 'only the holder releases');
  spec.given([]).when(release('site-1')).then(t, [], 'a key never reserved has nothing to release');
});

t.test('an abandoned reservation is taken over, only from the holder judged abandoned', async (t) => {
  spec
    .given([reserved('site-1')])
    .when(reserve('site-2', 'site-1'))
    .then(t, [reserved('site-2')]);
  spec
    .given([reserved('site-3')])
    .when(reserve('site-2', 'site-1'))
    .thenThrows(t, KeyHeldError);
});
