import test from 'ava';
import { builtinNames } from '../../lib/providers/core/kinds.js';
import { catalog, catalogNames } from '../../lib/providers/social.js';
import { sha1 } from '../../lib/user.js';
import { Client, decodeJwt, startApp } from '../helpers/http.js';
import { options, standinLogin, startLogin } from './fixtures.js';
import { startStandin } from './standin.js';

/**
 * Every catalog row against a stand-in answering that provider's documented user-info JSON.
 * `entry` adds options to `{ name, cid, csecret }`; the stand-in's endpoints replace the real ones.
 */
async function loginAs(t: any, name: string, info: unknown, entry: Record<string, unknown> = {}, query = '') {
  const standin = await startStandin(info);
  t.teardown(() => standin.close());
  const app = await startApp(
    options([{ name, cid: `${name}-cid`, csecret: `${name}-secret`, ...standin.endpoints(), ...entry }]),
  );
  t.teardown(() => app.close());
  const c = new Client(app.url);
  const res = await standinLogin(c, name.toLowerCase(), query);
  t.is(res.status, 200, await res.clone().text());
  const user = (await res.json()) as Record<string, any>;
  t.deepEqual(decodeJwt(c.jar.get('JWT')!).user, user, 'the cookie carries the same user');
  return { user, standin, app, c };
}

const google = {
  sub: '1234567890',
  name: 'Test User',
  picture: 'https://lh3.googleusercontent.com/a/photo',
  locale: 'en',
  email: 'xyz@gmail.com',
};

test('google: sub → google_<sha1>, name, picture; userAttributes copies fields; credentials in the form body', async (t) => {
  const { user, standin } = await loginAs(t, 'google', google, { userAttributes: { locale: 'lang', email: 'mail' } });
  t.deepEqual(user, {
    name: 'Test User',
    id: 'google_01b307acba4f54f55aafc33bb06bbbf6ca803e9a',
    picture: 'https://lh3.googleusercontent.com/a/photo',
    attrs: { lang: 'en', mail: 'xyz@gmail.com' },
  });
  const token = standin.seen.find((s) => s.path === '/token')!;
  t.is(token.body.get('client_id'), 'google-cid');
  t.is(token.body.get('client_secret'), 'google-secret');
  t.is(token.authorization, '');
  t.is(token.body.get('grant_type'), 'authorization_code');
  t.truthy(token.body.get('code_verifier'));
});

test('google without a name: noname_ + characters 8..12 of the id (noname_1b30)', async (t) => {
  const { user } = await loginAs(t, 'google', { ...google, name: '' });
  t.is(user.name, 'noname_1b30');
});

test('github: login → id, name, avatar_url; client credentials by HTTP Basic', async (t) => {
  const { user, standin } = await loginAs(t, 'github', {
    login: 'lll',
    id: 1345027,
    name: 'Lev L',
    avatar_url: 'https://avatars.githubusercontent.com/u/1345027',
  });
  t.deepEqual(user, {
    name: 'Lev L',
    id: 'github_e80b2d2608711cbb3312db7c4727a46fbad9601a',
    picture: 'https://avatars.githubusercontent.com/u/1345027',
  });
  const token = standin.seen.find((s) => s.path === '/token')!;
  t.is(token.authorization, `Basic ${Buffer.from('github-cid:github-secret').toString('base64')}`);
});

test('github: a null name falls back to the login; the numeric id is ignored by default', async (t) => {
  const { user } = await loginAs(t, 'github', { login: 'lll', id: 1345027, name: null, avatar_url: '' });
  t.is(user.name, 'lll');
  t.is(user.id, 'github_e80b2d2608711cbb3312db7c4727a46fbad9601a');
});

test('github numeric-id mode: gid:<id> survives renames; a missing id falls back to the login', async (t) => {
  const { user } = await loginAs(t, 'github', { login: 'renamed', id: 1345027, name: 'Lev' }, { numericId: true });
  t.is(user.id, 'github_d4dc5da9a1e6bbd5d77920e4ea2ca91707e59083');
  const { user: fallback } = await loginAs(t, 'github', { login: 'lll', name: 'Lev' }, { numericId: true });
  t.is(fallback.id, 'github_e80b2d2608711cbb3312db7c4727a46fbad9601a');
});

test('facebook: id, name, picture.data.url; no name → the first 16 characters of the id', async (t) => {
  const fb = {
    id: 'myid',
    name: 'Face Book',
    picture: { data: { url: 'https://scontent.xx.fbcdn.net/pic.jpg', width: 50 } },
  };
  const { user } = await loginAs(t, 'facebook', fb);
  t.deepEqual(user, {
    name: 'Face Book',
    id: 'facebook_6e34471f84557e1713012d64a7477c71bfdac631',
    picture: 'https://scontent.xx.fbcdn.net/pic.jpg',
  });
  const { user: noname } = await loginAs(t, 'facebook', { ...fb, name: '' });
  t.is(noname.name, 'facebook_6e34471');
});

test('yandex: display_name → real_name → login; avatar URL from default_avatar_id', async (t) => {
  const ya = {
    id: '1000034426',
    login: 'ivan',
    display_name: 'Vanya',
    real_name: 'Ivan Ivanov',
    default_avatar_id: '131652443',
    is_avatar_empty: false,
  };
  const { user } = await loginAs(t, 'yandex', ya);
  t.deepEqual(user, {
    name: 'Vanya',
    id: `yandex_${sha1('1000034426')}`,
    picture: 'https://avatars.yandex.net/get-yapic/131652443/islands-200',
  });
  t.is((await loginAs(t, 'yandex', { ...ya, display_name: '' })).user.name, 'Ivan Ivanov');
  const bare = (await loginAs(t, 'yandex', { id: '1', login: 'ivan', default_avatar_id: '' })).user;
  t.is(bare.name, 'ivan');
  t.is(bare.picture, '');
});

test('battlenet: a numeric id is formatted the Go way before hashing (1.345027e+06); battletag is the name', async (t) => {
  const { user } = await loginAs(t, 'battlenet', { sub: '1345027', id: 1345027, battletag: 'Player#1234' });
  t.deepEqual(user, { name: 'Player#1234', id: `battlenet_${sha1('1.345027e+06')}`, picture: '' });
  t.is((await loginAs(t, 'battlenet', { id: 27385, battletag: 'Small#1' })).user.id, `battlenet_${sha1('27385')}`);
});

test('microsoft: id and displayName; the picture is the Graph photo URL', async (t) => {
  const { user } = await loginAs(t, 'microsoft', {
    id: '87d349ed-44d7-43e1-9a83-5f2406dee5bd',
    displayName: 'Megan Bowen',
    mail: 'megan@contoso.test',
  });
  t.deepEqual(user, {
    name: 'Megan Bowen',
    id: `microsoft_${sha1('87d349ed-44d7-43e1-9a83-5f2406dee5bd')}`,
    picture: 'https://graph.microsoft.com/beta/me/photo/$value',
  });
});

test('microsoft tenant: common by default, a custom tenant in the URLs, unsafe tenants fall back to common', async (t) => {
  const cases: Array<[unknown, string]> = [
    [undefined, 'common'],
    ['contoso.onmicrosoft.com', 'contoso.onmicrosoft.com'],
    ['organizations', 'organizations'],
    ['bad/tenant', 'common'],
    ['../evil', 'common'],
    ['a b', 'common'],
    ['x?y', 'common'],
  ];
  for (const [tenant, expected] of cases) {
    const app = await startApp(
      options([{ name: 'microsoft', cid: 'c', csecret: 's', ...(tenant === undefined ? {} : { tenant }) }]),
    );
    try {
      const authorize = await startLogin(new Client(app.url), 'microsoft');
      t.is(
        authorize.href.split('?')[0],
        `https://login.microsoftonline.com/${expected}/oauth2/v2.0/authorize`,
        String(tenant),
      );
      t.is(authorize.searchParams.get('scope'), 'User.Read');
    } finally {
      await app.close();
    }
  }
});

test('patreon: data.id, full_name, image_url; is_paid_sub when pledges exist; distinct ids', async (t) => {
  const pat = (id: string, pledges: unknown[]) => ({
    data: {
      id,
      type: 'user',
      attributes: { full_name: 'Pat Ron', image_url: `https://c8.patreon.com/2/200/${id}` },
      relationships: { pledges: { data: pledges } },
    },
  });
  const { user } = await loginAs(t, 'patreon', pat('12345', [{ id: 'p1', type: 'pledge' }]));
  t.deepEqual(user, {
    name: 'Pat Ron',
    id: `patreon_${sha1('12345')}`,
    picture: 'https://c8.patreon.com/2/200/12345',
    attrs: { is_paid_sub: true },
  });
  const { user: free } = await loginAs(t, 'patreon', pat('67890', []));
  t.is(free.attrs, undefined);
  t.not(free.id, user.id);
});

test('discord: id, username, webp avatar URL; no avatar → empty picture', async (t) => {
  const { user } = await loginAs(t, 'discord', {
    id: '80351110224678912',
    username: 'Nelly',
    discriminator: '0',
    avatar: '8342729096ea3675442027381ff50dfe',
  });
  t.deepEqual(user, {
    name: 'Nelly',
    id: `discord_${sha1('80351110224678912')}`,
    picture: 'https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.webp',
  });
  t.is((await loginAs(t, 'discord', { id: '1', username: 'n', avatar: null })).user.picture, '');
});

test('twitter (X, OAuth 2.0 + PKCE): data.id, username before name, profile image; `x` is an alias', async (t) => {
  const x = {
    data: {
      id: '2244994945',
      name: 'X Dev',
      username: 'XDevelopers',
      profile_image_url: 'https://pbs.twimg.com/profile_images/1/a_normal.jpg',
    },
  };
  const { user, standin } = await loginAs(t, 'twitter', x);
  t.deepEqual(user, {
    name: 'XDevelopers',
    id: `twitter_${sha1('2244994945')}`,
    picture: 'https://pbs.twimg.com/profile_images/1/a_normal.jpg',
  });
  t.truthy(standin.seen.find((s) => s.path === '/token')!.body.get('code_verifier'));
  t.is((await loginAs(t, 'x', x)).user.id, `x_${sha1('2244994945')}`);
  t.is((await loginAs(t, 'twitter', { data: { id: '1', name: 'Only Name' } })).user.name, 'Only Name');
});

test('every row asks only for its minimal scopes and sends an S256 challenge', async (t) => {
  const expected: Record<string, string | null> = {
    google: 'https://www.googleapis.com/auth/userinfo.profile',
    github: null,
    facebook: 'public_profile',
    yandex: null,
    battlenet: null,
    microsoft: 'User.Read',
    patreon: null,
    discord: 'identify',
    twitter: 'users.read tweet.read',
  };
  t.deepEqual(Object.keys(catalog).sort(), Object.keys(expected).sort());
  const app = await startApp(options(Object.keys(expected).map((name) => ({ name, cid: 'c', csecret: 's' }))));
  t.teardown(() => app.close());
  for (const [name, scope] of Object.entries(expected)) {
    const authorize = await startLogin(new Client(app.url), name);
    t.is(authorize.searchParams.get('scope'), scope, name);
    t.is(authorize.searchParams.get('code_challenge_method'), 'S256', name);
    t.is(authorize.searchParams.get('client_id'), 'c');
    t.is(authorize.searchParams.get('response_type'), 'code');
    t.is(authorize.searchParams.get('redirect_uri'), `${app.url}/auth/${name}/callback`);
  }
});

test('a second client of a built-in row under another name (GitHub Enterprise): kind social with a preset', async (t) => {
  const { user } = await loginAs(t, 'ghe', { login: 'lll', name: 'Lev' }, { kind: 'social', preset: 'github' });
  t.is(user.id, `ghe_${sha1('lll')}`);
});

test('the built-in names known without loading the catalog are exactly its rows (plus x for twitter)', (t) => {
  const social = [...builtinNames].filter(([, b]) => b.kind === 'social').map(([name, b]) => [name, b.preset]);
  t.deepEqual(Object.fromEntries(social), catalogNames);
});
